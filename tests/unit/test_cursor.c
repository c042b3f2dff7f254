/* test_cursor.c - bounds-checked reads and LEB128 edge cases. */
#include "../../common/cursor.h"
#include "unit.h"

static uint64_t uleb(const uint8_t *p, size_t n, bool *bad, size_t *used)
{
	cursor c = cursor_make(p, n);
	uint64_t v = cur_uleb(&c);
	*bad = c.bad;
	*used = (size_t)(c.p - p);
	return v;
}

static int64_t sleb(const uint8_t *p, size_t n, bool *bad)
{
	cursor c = cursor_make(p, n);
	int64_t v = cur_sleb(&c);
	*bad = c.bad;
	return v;
}

int main(void)
{
	bool bad;
	size_t used;
	CHECK_U64(uleb((const uint8_t[]){ 0 }, 1, &bad, &used), 0);
	CHECK(!bad && used == 1);
	CHECK_U64(uleb((const uint8_t[]){ 0x7f }, 1, &bad, &used), 127);
	CHECK_U64(uleb((const uint8_t[]){ 0x80, 0x01 }, 2, &bad, &used), 128);
	CHECK(!bad && used == 2);
	CHECK_U64(uleb((const uint8_t[]){ 0xe5, 0x8e, 0x26 }, 3, &bad, &used),
		  624485);
	/* redundant zero continuation bytes are fine */
	CHECK_U64(uleb((const uint8_t[]){ 0x81, 0x80, 0x80, 0x00 }, 4, &bad,
		       &used), 1);
	CHECK(!bad);
	static const uint8_t max[] = { 0xff, 0xff, 0xff, 0xff, 0xff,
				       0xff, 0xff, 0xff, 0xff, 0x01 };
	CHECK_U64(uleb(max, sizeof max, &bad, &used), UINT64_MAX);
	CHECK(!bad);
	static const uint8_t over[] = { 0xff, 0xff, 0xff, 0xff, 0xff,
					0xff, 0xff, 0xff, 0xff, 0x02 };
	uleb(over, sizeof over, &bad, &used);
	CHECK(bad);
	uleb((const uint8_t[]){ 0x80, 0x80 }, 2, &bad, &used); /* truncated */
	CHECK(bad && used == 2);

	CHECK_U64(sleb((const uint8_t[]){ 0x7f }, 1, &bad), -1);
	CHECK_U64(sleb((const uint8_t[]){ 0x80, 0x7f }, 2, &bad), -128);
	CHECK_U64(sleb((const uint8_t[]){ 0x3f }, 1, &bad), 63);
	CHECK_U64(sleb((const uint8_t[]){ 0x40 }, 1, &bad), -64);
	CHECK_U64(sleb((const uint8_t[]){ 0xc0, 0x00 }, 2, &bad), 64);
	static const uint8_t smin[] = { 0x80, 0x80, 0x80, 0x80, 0x80,
					0x80, 0x80, 0x80, 0x80, 0x7f };
	CHECK_U64(sleb(smin, sizeof smin, &bad), INT64_MIN);
	CHECK(!bad);
	static const uint8_t smax[] = { 0xff, 0xff, 0xff, 0xff, 0xff,
					0xff, 0xff, 0xff, 0xff, 0x00 };
	CHECK_U64(sleb(smax, sizeof smax, &bad), INT64_MAX);
	CHECK(!bad);
	static const uint8_t sover[] = { 0xff, 0xff, 0xff, 0xff, 0xff,
					 0xff, 0xff, 0xff, 0xff, 0x01 };
	sleb(sover, sizeof sover, &bad);
	CHECK(bad);
	sleb((const uint8_t[]){ 0xff }, 1, &bad);
	CHECK(bad);

	/* fixed-size reads stop at the end and stay there */
	const uint8_t three[] = { 1, 2, 3 };
	cursor c = cursor_make(three, 3);
	CHECK_U64(cur_u16(&c), 0x0201);
	CHECK_U64(cur_u32(&c), 0);
	CHECK(c.bad && cur_left(&c) == 0);
	CHECK_U64(cur_u8(&c), 0);
	c = cursor_make(three, 3);
	cur_skip(&c, 4);
	CHECK(c.bad);
	c = cursor_make((const uint8_t[]){ 0xfe, 0xff }, 2);
	CHECK_U64(cur_s16(&c), -2);
	UNIT_DONE("test_cursor");
}
