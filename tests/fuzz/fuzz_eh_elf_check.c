/*
 * fuzz_eh_elf_check.c - libFuzzer target for the eh_elf validator
 * (common/eh_elf_check.h): the input is a file image, given to
 * eh_elf_check in an allocation of exactly its size (so that ASan sees any
 * read past it).  When the check accepts, what it promises the loader
 * must hold: every entry point and ehelf_info inside the R+X segment,
 * itself inside the input, in the code generator's order (local, remote,
 * describe, info), the code starting with a non-zero byte at
 * ehelf_step_local, the entry points and ehelf_info where ehelf_info
 * records them, its check word matching; and a one-line reason
 * otherwise.
 *
 * Seeded by tests/fuzz/run-fuzz.sh with a real eh_elf (zoo.so's).
 */
#include <stdlib.h>
#include <string.h>

#include "../../common/eh_elf_check.h"
#include "../../common/eh_elf_format.h"
#include "../../abi/ehelf_abi.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *img = malloc(size ? size : 1);
	if (!img)
		return 0;
	memcpy(img, data, size);
	eh_elf_layout l;
	char why[256];
	why[0] = 0;
	if (eh_elf_check(img, size, &l, why, sizeof why) == 0) {
		if (l.rx_size > size || l.off_local >= l.rx_size ||
		    l.off_remote >= l.rx_size || l.off_describe >= l.rx_size ||
		    l.rx_size < sizeof(struct ehelf_info) ||
		    l.off_info > l.rx_size - sizeof(struct ehelf_info) ||
		    l.abi_version != EHELF_ABI_VERSION || l.build_id_len > 64 ||
		    !(l.off_local < l.off_remote && l.off_remote < l.off_describe &&
		      l.off_describe < l.off_info) || img[l.off_local] == 0)
			__builtin_trap();
		struct ehelf_info info;
		memcpy(&info, img + l.off_info, sizeof info);
		if (info.check != eh_elf_info_check(&info) ||
		    l.off_remote != l.off_local + info.off_remote ||
		    l.off_describe != l.off_local + info.off_describe ||
		    l.off_info != l.off_local + ehf_align(info.code_size, 8))
			__builtin_trap();
	} else if (!why[0] || strchr(why, '\n')) {
		__builtin_trap(); /* a refusal always says why, in one line */
	}
	free(img);
	return 0;
}
