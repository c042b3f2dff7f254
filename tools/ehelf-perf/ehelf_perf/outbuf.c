/* outbuf.c - see outbuf.h. */
#include "outbuf.h"

#include <errno.h>
#include <string.h>

void ob_init(outbuf *o, FILE *f)
{
	o->f = f;
	o->n = 0;
	o->error = 0;
	o->flushes = 0;
}

int ob_flush(outbuf *o)
{
	if (o->n && !o->error && fwrite(o->buf, 1, o->n, o->f) != o->n)
		o->error = errno ? errno : EIO;
	o->n = 0;
	o->flushes++;
	return o->error ? -1 : 0;
}

static void room(outbuf *o, size_t n)
{
	if (o->n + n > sizeof o->buf)
		ob_flush(o);
}

void ob_mem(outbuf *o, const char *s, size_t n)
{
	if (n > sizeof o->buf / 2) {
		ob_flush(o);
		if (!o->error && fwrite(s, 1, n, o->f) != n)
			o->error = errno ? errno : EIO;
		return;
	}
	room(o, n);
	memcpy(o->buf + o->n, s, n);
	o->n += n;
}

void ob_str(outbuf *o, const char *s)
{
	ob_mem(o, s, strlen(s));
}

void ob_char(outbuf *o, char c)
{
	room(o, 1);
	o->buf[o->n++] = c;
}

static void pad_digits(outbuf *o, const char *digits, int nd, int width,
		       char fill)
{
	room(o, (size_t)(width > nd ? width : nd));
	for (int i = nd; i < width; i++)
		o->buf[o->n++] = fill;
	memcpy(o->buf + o->n, digits, (size_t)nd);
	o->n += (size_t)nd;
}

void ob_hex(outbuf *o, uint64_t v, int width)
{
	char d[16];
	int n = 0;
	do {
		d[15 - n++] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	pad_digits(o, d + 16 - n, n, width, ' ');
}

void ob_dec(outbuf *o, uint64_t v, int width, int zeros)
{
	char d[20];
	int n = 0;
	do {
		d[19 - n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	pad_digits(o, d + 20 - n, n, width, zeros ? '0' : ' ');
}
