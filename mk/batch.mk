# ehelf-batch under a full disk, concurrent and killed runs, foreign and
# damaged databases, hostile packages and build-ID conflicts (as root)
batch-hostile-test: all $(STORE_CHECK)
	@tests/batch/run-hostile-tests.sh $(B)
PHONY += batch-hostile-test
CHECK_MORE += batch-hostile-test

# ehelf-pkg: a shared build-ID carried by a package that builds, advice
# that works (a few seconds)
pkg-owner-test: all
	@tests/packaging/run-owner-test.sh $(B)
PHONY += pkg-owner-test
CHECK_MORE += pkg-owner-test
