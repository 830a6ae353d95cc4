#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""check_cols.py - test_cols.c's readers of tsa-prstat's machine output.

  check_cols.py csv CSV JSON VIEW    --csv read back with the csv module,
                                     every cell against the --json line
                                     of the same thread or process
  check_cols.py keys DOC FILE...     every object of every JSON-lines
                                     FILE: "schema" 1 first, each key
                                     in DOC (docs/json.md), one type
                                     per key, no schema-0 key

Prints what it expected and saw on the first mismatch; exit 1.
"""
import csv
import json
import re
import sys

SOL = {  # -m's columns from the module's states (view/table.c)
    'usr': ['USR'], 'sys': ['SYS'], 'trp': ['TRP'], 'tfl': ['TFL'],
    'dfl': ['DFL', 'APG'], 'lck': ['LCK'], 'slp': ['SLP', 'KLK', 'IOW', 'IDL'],
    'lat': ['LAT'],
}
CALL = {  # -y's split (view/table.c's call_cols)
    'sys': ['SYS', 'TRP'], 'lat': ['LAT'], 'flt': ['TFL', 'DFL', 'KFL'],
    'apg': ['APG'], 'lck': ['LCK'], 'klk': ['KLK'], 'iow': ['IOW'],
    'idl': ['IDL'], 'slp': ['SLP', 'STP', 'USR'],
}
TSA = {
    'exec': ['USR', 'SYS', 'TRP'], 'run': ['LAT'], 'apg': ['APG'],
    'slp': ['TFL', 'DFL', 'KFL', 'IOW', 'SLP'], 'lck': ['LCK', 'KLK'],
    'idl': ['IDL'], 'stp': ['STP'], 'wait': ['LAT', 'LCK', 'KLK', 'APG'],
}


def fail(msg):
    print(msg)
    sys.exit(1)


def want_of(col, o, view):
    st = o['states']
    if view == 'y':
        if col in CALL:
            return sum(st[s]['ns'] for s in CALL[col] if s in st) + \
                (o.get('unknown_ns', 0) if col == 'slp' else 0)
        if col == 'pct':
            return o['ns']
        if col == 'avg':
            return o['avg_ns'] if o['avg_ns'] is not None else ''
        if col == 'max':
            return o['max_ns']
    fold = (TSA if view == 'A' else SOL).get(col)
    if fold:
        return sum(st[s]['ns'] for s in fold)
    if col == 'cpu':
        return sum(st[s]['ns'] for s in ('USR', 'SYS', 'TRP'))
    if col == 'time':
        return sum(st[s]['total_ns'] for s in ('USR', 'SYS', 'TRP'))
    if col in ('vcx', 'icx', 'scl', 'sig'):
        return o['counters'][col.upper()]['delta']
    if col == 'elapsed':
        return o['elapsed_ns']
    if col == 'process':
        return '%s/%d' % (o['comm'], o['tid'] if 'tid' in o else o['nlwp'])
    if col == 'ts':
        return '%.3f' % o['ts']
    if col == 'user':
        return o['user'] if o['user'] is not None else str(o['uid'])
    return o[col]


def check_csv(csvfile, jsonfile, view):
    objs = {}
    for line in open(jsonfile):
        o = json.loads(line)
        if 'group' in o:    # --group: by name
            objs[o['name']] = o
        elif 'call' in o:   # -y: by thread or process and call
            objs[(o['pid'], o.get('tid', o.get('nlwp')), o['call'])] = o
        else:
            objs[(o['pid'], o.get('tid', 0))] = o
    with open(csvfile, newline='') as f:
        rows = list(csv.reader(f))
    if not rows:
        fail('csv: no header line')
    head = rows[0]
    if len(rows) - 1 != len(objs):
        fail('csv: expected %d rows (the JSON lines), saw %d'
             % (len(objs), len(rows) - 1))
    for r in rows[1:]:
        if len(r) != len(head):
            fail('csv: expected %d fields, saw %d: %r' % (len(head), len(r), r))
        cell = dict(zip(head, r))
        if 'name' in cell:
            key = cell['name']
        elif 'call' in cell:
            key = (int(cell['pid']), int(cell.get('tid', cell.get('nlwp'))),
                   cell['call'])
        else:
            key = (int(cell['pid']), int(cell.get('tid', 0)))
        o = objs.get(key)
        if o is None:
            fail('csv: a row with no JSON line: %r' % r)
        for c in head:
            want = want_of(c, o, view)
            seen = cell[c]
            if c == 'ts':   # two runs: the same format, near in time
                if not re.fullmatch(r'[0-9]+\.[0-9]{3}', seen) or \
                        abs(float(seen) - float(want)) > 60:
                    fail('csv: ts of %r: expected near %s, saw %r'
                         % (key, want, seen))
                continue
            if isinstance(want, int) and not isinstance(want, bool):
                if not re.fullmatch(r'[0-9]+', seen) or int(seen) != want:
                    fail('csv: %s of %r: expected %d, saw %r'
                         % (c, key, want, seen))
            elif str(want) != seen:
                fail('csv: %s of %r: expected %r, saw %r'
                     % (c, key, want, seen))
    print('csv: %d rows of %d columns, each cell as --json has it'
          % (len(rows) - 1, len(head)))


MAPS = ('states', 'counters', 'solaris', 'tsa', 'split')
OLD = ('n', 'max', 'waker_name')


def doc_keys(doc):
    keys = set()
    for line in open(doc):
        if not line.startswith('| `'):
            continue
        first = line.split('|')[1]
        for k in re.findall(r'`([^`]+)`', first):
            # "states.*.ns", "hists[].count": the last part is the key
            keys.add(re.split(r'[.\]]', k)[-1] or k)
            keys.add(k.split('.')[0].split('[')[0])
    return keys


def walk(o, path, seen, types, where):
    for k, v in o.items():
        inmap = path and path[-1] in MAPS
        key = '*' if inmap else k
        if not inmap:
            seen.setdefault(key, where)
            t = 'null' if v is None else type(v).__name__
            if t != 'null':
                types.setdefault(key, {}).setdefault(t, where)
        if isinstance(v, dict):
            walk(v, path + [k], seen, types, where)
        elif isinstance(v, list):
            for x in v:
                if isinstance(x, dict):
                    walk(x, path + [k], seen, types, where)


def check_keys(doc, files):
    documented = doc_keys(doc)
    seen, types = {}, {}
    n = 0
    for fn in files:
        for i, line in enumerate(open(fn)):
            o = json.loads(line)
            n += 1
            where = '%s line %d' % (fn.split('/')[-1], i + 1)
            if list(o.keys())[:1] != ['schema'] or o['schema'] != 1:
                fail('keys: %s: expected "schema":1 first, saw %s'
                     % (where, line[:60]))
            walk(o, [], seen, types, where)
    for k, where in sorted(seen.items()):
        if k in OLD:
            fail('keys: %s has the schema-0 key "%s"' % (where, k))
        if k not in documented:
            fail('keys: "%s" (%s) is not in %s' % (k, where, doc))
    for k, t in sorted(types.items()):
        if len(t) > 1:
            fail('keys: "%s" has %d types: %r' % (k, len(t), t))
    print('keys: %d objects, %d keys, each documented, one type each'
          % (n, len(seen)))


if __name__ == '__main__':
    if len(sys.argv) == 5 and sys.argv[1] == 'csv':
        check_csv(sys.argv[2], sys.argv[3], sys.argv[4])
    elif len(sys.argv) >= 4 and sys.argv[1] == 'keys':
        check_keys(sys.argv[2], sys.argv[3:])
    else:
        fail(__doc__)
