"""Compares two PTX files kernel by kernel (tools/ptx-compare.sh): a kernel is the same when its text is, once
comments are dropped, parameters named by their index, and virtual registers and labels renamed in order of
first use. Kernels that differ only in the operand order of commutative predicate ORs are counted apart."""
import re
import sys


def kernels(path):
    text = open(path).read()
    out = {}
    for m in re.finditer(r'\.entry (\S+)\(', text):
        end = text.find('\n}\n', m.start())
        # the name without its parameter list (a kernel may take its parameters in another form)
        out[re.sub(r'(Ev|EEEv).*$', '', m.group(1))] = text[m.start():end]
    return out


def norm(text):
    text = re.sub(r'//.*', '', text)
    text = re.sub(r'[0-9A-Za-z_]*_param_(\d+)', r'PARAM_\1', text)
    text = re.sub(r'\.entry \S+\(', '.entry K(', text)
    text = '\n'.join(line for line in text.split('\n') if not re.match(r'\s*\.reg ', line))
    names, counts = {}, {}

    def register(m):
        if m.group(0) not in names:
            counts[m.group(1)] = counts.get(m.group(1), 0) + 1
            names[m.group(0)] = f'%{m.group(1)}#{counts[m.group(1)]}'
        return names[m.group(0)]

    text = re.sub(r'%(rd|r|fd|f|p|rs|h|hh)(\d+)\b', register, text)
    labels = {}
    return re.sub(r'\$L__BB\d+_\d+', lambda m: labels.setdefault(m.group(0), f'L#{len(labels)}'), text)


def tokens(line):
    return line.replace(',', ' ').replace(';', ' ').split()


def swapped_or(x, y):
    a, b = tokens(x), tokens(y)
    return a and a[0] == 'or.pred' and a[:2] == b[:2] and sorted(a[2:]) == sorted(b[2:])


before, after = kernels(sys.argv[1]), kernels(sys.argv[2])
same, swapped, differ = 0, [], []
for name, text in before.items():
    if name not in after:
        differ.append((name, 'missing after'))
        continue
    a, b = norm(text).splitlines(), norm(after[name]).splitlines()
    if a == b:
        same += 1
    elif len(a) == len(b) and all(x == y or swapped_or(x, y) for x, y in zip(a, b)):
        swapped.append((name, sum(x != y for x, y in zip(a, b))))
    else:
        differ.append((name, f'{len(a)} -> {len(b)} lines'))
for name in after:
    if name not in before:
        differ.append((name, 'new: not in the baseline'))
print(f'  {same} of {len(before)} kernels identical; {len(swapped)} differ only in the operand order of or.pred; '
      f'{len(differ)} differ or are missing on one side')
for name, n in swapped:
    print(f'    or.pred operands swapped ({n} lines): {name}')
for name, why in differ:
    print(f'    differs ({why}): {name}')
sys.exit(1 if differ else 0)
