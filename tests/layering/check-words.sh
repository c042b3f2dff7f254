#!/bin/sh
# Docs and comments are references, not a work log.  Fails, listing
# FILE:LINE: WHAT, on
#  - README.md and docs/*.md: "issue N", "stop N", "the fifth stop" and
#    other work-log phrases, and commit-hash-like words (7 to 40 hex digits
#    with a digit and a letter) outside code blocks and `code spans`
#    (build-IDs are data); docs/figures.md may name the commit a figure was
#    measured at (docs/journal.md names commits by date); in every one,
#    links to a path outside the repository
#    (up out of it, absolute, file:), to no file or to no heading;
#  - comments of the sources (*.c *.h *.cc *.S *.sh *.py *.mk, Makefile,
#    *.sql, and the shell, Perl and configuration files *.sbatch *.pm
#    *.conf *.service dh_ehelf;
#    test data under tests/*/data/ and tests/fixtures/ excepted): "issue N",
#    stops and work-log phrases, commit-hash-like words, and names of
#    design files outside the repository (the upper-case design file, a
#    path into ../shared).
# Usage: tests/layering/check-words.sh [ROOT]   (default: the source tree)
set -eu
root=${1:-$(dirname "$0")/../..}
cd "$root"
exec python3 - <<'EOF'
import os, re, subprocess, sys

ISSUE = re.compile(r'\bissues? #?[0-9]+', re.I)
STOP = re.compile(r'\bstops? [0-9]+|\b(first|second|third|fourth|fifth|sixth|'
                  r'seventh|eighth|ninth|tenth|last) stop\b', re.I)
WORKLOG = re.compile(r'measured and (dropped|not kept)|\bnot merged\b|'
                     r'\bthis session\b|\b(a|the|another|each) helpers?\b(?! (routine|function))|'
                     r'\bhelper (session|branch)|\btrial merge\b|'
                     r'\bbranch memo\b|\bthe lead\b', re.I)
HEX = re.compile(r'(?<![0-9A-Za-z_./#-])(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])'
                 r'[0-9a-f]{7,40}(?![0-9A-Za-z_])')
# in code, helpers are functions and a lead is RPM's: only the phrases
# that cannot be anything but a work log
SRC_WORKLOG = re.compile(r'measured and (dropped|not kept)|\bnot merged\b|'
                         r'\bthis session\b|\bhelper (session|branch)|'
                         r'\btrial merge\b|\bbranch memo\b', re.I)
OUTSIDE = re.compile(r'\bDESIGN\.md\b|\.\./shared/')
NOT_HASHES = {'ed25519'}   # hex-looking words that are names
bad = []

def tracked(pred):
    out = subprocess.run(['git', 'ls-files'], capture_output=True, text=True)
    if out.returncode != 0:     # not a git clone (an unpacked archive)
        names = [os.path.relpath(os.path.join(d, f))
                 for d, _, fs in os.walk('.') if '/.git' not in d
                 and not d.startswith('./build') for f in fs]
    else:
        names = out.stdout.split('\n')
    return sorted(n for n in names if n and pred(n) and os.path.isfile(n))

# ---- docs
def doc_lines(path):
    """(line number, prose text) of a markdown file: fenced and indented
    code blocks dropped, `code spans` blanked."""
    fenced = False
    prev_blank = True
    in_indented = False
    in_span = False
    with open(path, encoding='utf-8') as f:
        for no, line in enumerate(f, 1):
            line = line.rstrip('\n')
            if line.lstrip().startswith('```'):
                fenced = not fenced
                continue
            if fenced:
                continue
            if line.startswith('    ') and (prev_blank or in_indented) \
               and not line.lstrip().startswith(('-', '*', '|')):
                in_indented = True
                prev_blank = False
                continue
            in_indented = False
            prev_blank = line.strip() == ''
            # `code spans`, which may run over a line's end, blanked
            out = []
            for k, part in enumerate(line.split('`')):
                if k:
                    in_span = not in_span
                out.append('' if in_span else part)
            yield no, '``'.join(out)

docs = ['README.md'] + tracked(lambda n: n.startswith('docs/')
                                and n.endswith('.md'))

def slug(heading):
    """A heading's anchor as GitHub makes it."""
    h = re.sub(r'[^\w\- ]', '', heading.replace('`', '').strip().lower())
    return h.replace(' ', '-')

def anchors(path):
    found, seen, fenced = set(), {}, False
    with open(path, encoding='utf-8') as f:
        for line in f:
            if line.lstrip().startswith('```'):
                fenced = not fenced
            m = None if fenced else re.match(r'#+\s+(.*)', line)
            if m:
                s = slug(m.group(1))
                n = seen.get(s, 0)
                seen[s] = n + 1
                found.add(s if n == 0 else f'{s}-{n}')
    return found

for path in docs:
    if not os.path.isfile(path):
        continue
    for no, text in doc_lines(path):
        for what, rx in (
                ('issue number', ISSUE), ('stop', STOP),
                ('work-log phrase', WORKLOG)):
            m = rx.search(text)
            if m:
                bad.append(f'{path}:{no}: {what}: {m.group(0)}')
        for m in re.finditer(r'\]\(([^)\s#]*)(#[^)\s]*)?\)', text):
            target, anchor = m.group(1), m.group(2)
            if re.match(r'^[a-z]+:', target) and not target.startswith('file:'):
                continue        # a web address
            full = os.path.normpath(os.path.join(os.path.dirname(path), target)) \
                if target else path
            if target.startswith(('/', '~', 'file:')) or full.startswith('..') \
               or not os.path.exists(full):
                bad.append(f'{path}:{no}: link outside the repository or to '
                           f'no file: {target}')
            elif anchor and full.endswith('.md') and \
                    anchor[1:] not in anchors(full):
                bad.append(f'{path}:{no}: link to no heading: {target}{anchor}')
        if path != 'docs/figures.md':
            for m in HEX.finditer(text):
                if m.group(0) in NOT_HASHES:
                    continue
                bad.append(f'{path}:{no}: commit hash: {m.group(0)}')

# ---- source comments
def is_source(n):
    base = os.path.basename(n)
    if n.startswith('tests/fixtures/') or re.match(r'tests/[^/]+/data/', n):
        return False
    if n.startswith('build/'):
        return False
    return base in ('Makefile', 'dh_ehelf') or base.endswith(
        ('.c', '.h', '.cc', '.S', '.sh', '.py', '.mk', '.sql', '.sbatch',
         '.pm', '.conf', '.service'))

def c_comments(text):
    """(line number, comment text) of C-like source: /* */ and //."""
    i, no, n = 0, 1, len(text)
    while i < n:
        c = text[i]
        if c == '\n':
            no += 1; i += 1
        elif c in '"\'':
            j = i + 1
            while j < n and text[j] != c and text[j] != '\n':
                j += 2 if text[j] == '\\' else 1
            i = j + 1
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j
            for k, part in enumerate(text[i + 2:j].split('\n')):
                yield no + k, part
            no += text.count('\n', i, j)
            i = j + 2
        elif text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            yield no, text[i + 2:j]
            i = j
        else:
            i += 1

def hash_comments(text):
    """(line number, comment text) of shell, Python and make: from a #
    that starts the line or follows a blank (not $#, ${#x}, quoted ones)."""
    for no, line in enumerate(text.split('\n'), 1):
        m = re.search(r'(^|\s)#(?!!)', line)
        if m and not re.search(r'["\'][^"\']*$', line[:m.start() + 1]):
            yield no, line[m.end():]

for path in tracked(is_source):
    if path == 'tests/layering/check-words.sh':   # names what it refuses
        continue
    try:
        with open(path, encoding='utf-8', errors='replace') as f:
            text = f.read()
    except OSError:
        continue
    if path.endswith(('.c', '.h', '.cc')):
        comments = c_comments(text)
    elif path.endswith('.S'):
        comments = list(c_comments(text)) + list(hash_comments(text))
    elif path.endswith('.sql'):
        comments = ((no, line.split('--', 1)[1])
                    for no, line in enumerate(text.split('\n'), 1) if '--' in line)
    else:
        comments = hash_comments(text)
    for no, part in comments:
        for what, rx in (('issue number', ISSUE), ('stop', STOP),
                         ('work-log phrase', SRC_WORKLOG)):
            m = rx.search(part)
            if m:
                bad.append(f'{path}:{no}: {what}: {m.group(0)}')
        m = OUTSIDE.search(part)
        if m:
            bad.append(f'{path}:{no}: file outside the repository: '
                       f'{m.group(0)}')
        for m in HEX.finditer(part):
            if m.group(0) in NOT_HASHES:
                continue
            bad.append(f'{path}:{no}: commit hash: {m.group(0)}')

for b in bad:
    print(b)
if bad:
    print(f'check-words: {len(bad)} offending lines (docs and comments are '
          'references: no issue numbers, work-log words or commit hashes)',
          file=sys.stderr)
    sys.exit(1)
EOF
