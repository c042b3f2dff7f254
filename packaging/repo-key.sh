#!/bin/sh
# Print the fingerprint of the gpg key that signs an ehelf repository,
# making the key first if the keyring GNUPGHOME has none: Ed25519, no
# passphrase (it signs unattended), never expiring.  For `make run` and
# the tests; a real archive keeps its key elsewhere and gives ehelf-pkg
# --gpg-key.
#
# Usage: packaging/repo-key.sh GNUPGHOME [USER-ID]
set -eu
case ${1:-} in -h | --help)
	sed -n '2,/^set -eu$/{/^#/s/^# \{0,1\}//p}' "$0"
	exit 0 ;;
esac
home=${1:?usage: repo-key.sh GNUPGHOME [USER-ID]}
uid=${2:-ehelf repository signing key <ehelf@localhost>}
mkdir -p "$home"
chmod 700 "$home"
export GNUPGHOME="$home"
fpr() {
	gpg --batch --with-colons --list-secret-keys 2>/dev/null |
		awk -F: '$1 == "fpr" { print $10; exit }'
}
if [ -z "$(fpr)" ]; then
	gpg --batch --passphrase '' --quick-gen-key "$uid" ed25519 sign never \
		>/dev/null 2>&1 || { echo "repo-key: gpg could not make a key in $home" >&2; exit 1; }
fi
f=$(fpr)
[ -n "$f" ] || { echo "repo-key: no secret key in $home" >&2; exit 1; }
echo "$f"
