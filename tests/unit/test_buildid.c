/* test_buildid.c - build-ID text, validation and store paths. */
#include "../../common/buildid.h"
#include "unit.h"
#include "../../store/layout.h"

int main(void)
{
	char hex[BUILDID_HEX_MAX + 1];
	const uint8_t id[] = { 0x00, 0xab, 0x7f, 0xff };
	CHECK(buildid_to_hex(id, 4, hex, sizeof hex) == 8);
	CHECK_STR(hex, "00ab7fff");
	CHECK(buildid_to_hex(id, 0, hex, sizeof hex) == -1);
	CHECK(buildid_to_hex(id, 4, hex, 8) == -1);

	CHECK(buildid_valid_hex("ab"));
	CHECK(buildid_valid_hex("0123456789abcdef0123456789abcdef01234567"));
	CHECK(!buildid_valid_hex(""));
	CHECK(!buildid_valid_hex("a"));
	CHECK(!buildid_valid_hex("abc"));
	CHECK(!buildid_valid_hex("AB"));
	CHECK(!buildid_valid_hex("../x"));
	CHECK(!buildid_valid_hex("ab/c"));
	char big[BUILDID_HEX_MAX + 3];
	memset(big, 'a', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	CHECK(!buildid_valid_hex(big)); /* 130 characters */
	big[BUILDID_HEX_MAX] = '\0';
	CHECK(buildid_valid_hex(big));  /* 128 characters */

	uint8_t raw[4];
	CHECK(buildid_from_hex("00ab7fff", raw, sizeof raw) == 4);
	CHECK(memcmp(raw, id, 4) == 0);
	CHECK(buildid_from_hex("00ab7fff00", raw, sizeof raw) == -1); /* too long */
	CHECK(buildid_from_hex("00AB", raw, sizeof raw) == -1);
	CHECK(buildid_from_hex("0a1", raw, sizeof raw) == -1);

	char path[256];
	CHECK(store_layout_path("/usr/lib/ehelf", "0fa1b2", path,
				 sizeof path) > 0);
	CHECK_STR(path, "/usr/lib/ehelf/.build-id/0f/a1b2.so");
	CHECK(store_layout_path("/s", "0F", path, sizeof path) == -1);
	CHECK(store_layout_path("/s", "0fa1", path, 10) == -1);

	/* equality up to perf's zero padding, either way round */
	const uint8_t a[20] = { 1, 2, 3, 4 }, b[4] = { 1, 2, 3, 4 };
	const uint8_t c[4] = { 1, 2, 3, 5 }, d[20] = { 1, 2, 3, 4, 0, 7 };
	CHECK(buildid_same(a, 20, b, 4) && buildid_same(b, 4, a, 20));
	CHECK(buildid_same(b, 4, b, 4));
	CHECK(!buildid_same(a, 20, c, 4) && !buildid_same(c, 4, a, 20));
	CHECK(!buildid_same(d, 20, b, 4) && !buildid_same(b, 4, d, 20));
	UNIT_DONE("test_buildid");
}
