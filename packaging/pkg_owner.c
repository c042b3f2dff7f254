/* pkg_owner.c - see pkg_owner.h. */
#include "pkg_owner.h"

#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

size_t pkg_owner_assign(pkg_set *set, pkg_rank_fn rank, void *arg)
{
	size_t shared = 0;
	bool *is_shared = calloc(set->n_elfs ? set->n_elfs : 1, sizeof *is_shared);
	int *owner_rank = malloc((set->n_elfs ? set->n_elfs : 1) * sizeof *owner_rank);
	if (!is_shared || !owner_rank) {
		/* without memory to compare, the first name in byte order
		 * carries each build-ID: still a valid choice */
		free(is_shared);
		free(owner_rank);
		is_shared = NULL;
		owner_rank = NULL;
	}
	for (size_t i = 0; i < set->n; i++) {
		pkg *p = &set->pkgs[i];
		for (size_t k = 0; k < p->n_elf; k++) {
			pkg_elf *e = &set->elfs[p->elf[k]];
			if (!e->owner) {
				e->owner = p->name;
			} else if (strcmp(e->owner, p->name) != 0 && is_shared &&
				   !is_shared[p->elf[k]]) {
				is_shared[p->elf[k]] = true;
				shared++;
			}
		}
	}
	if (is_shared && shared) {
		for (size_t k = 0; k < set->n_elfs; k++)
			owner_rank[k] = INT_MAX;
		const char *ranked = NULL;   /* the name whose rank is R */
		int r = 0;
		for (size_t i = 0; i < set->n; i++) {
			pkg *p = &set->pkgs[i];
			for (size_t k = 0; k < p->n_elf; k++) {
				size_t x = p->elf[k];
				if (!is_shared[x])
					continue;
				if (!ranked || strcmp(ranked, p->name) != 0) {
					r = rank(arg, set, i);
					ranked = p->name;
				}
				/* by name order, the first of equal rank wins */
				if (r < owner_rank[x]) {
					owner_rank[x] = r;
					set->elfs[x].owner = p->name;
				}
			}
		}
	}
	free(is_shared);
	free(owner_rank);
	for (size_t i = 0; i < set->n; i++) {
		pkg *p = &set->pkgs[i];
		size_t n = 0;
		for (size_t k = 0; k < p->n_elf; k++) {
			if (strcmp(set->elfs[p->elf[k]].owner, p->name) == 0)
				p->elf[n++] = p->elf[k];
			else
				p->n_elsewhere++;
		}
		p->n_elf = n;
	}
	pkg_set_drop_empty(set);
	return shared;
}
