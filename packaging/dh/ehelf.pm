#!/usr/bin/perl
#
# Debian::Debhelper::Sequence::ehelf - the debhelper sequence add-on that
# runs dh_ehelf before dh_strip, activated by Build-Depends:
# dh-sequence-ehelf (or dh $@ --with ehelf).  Installed as
# /usr/share/perl5/Debian/Debhelper/Sequence/ehelf.pm by the dh-ehelf
# package; see dh_ehelf(1).

use strict;
use warnings;
use Debian::Debhelper::Dh_Lib;

insert_before('dh_strip', 'dh_ehelf');

1;
