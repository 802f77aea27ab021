#!/usr/bin/env python3
"""Times `clang++-19 -fsyntax-only` over files of a compile_commands.json, with each file's
own flags, N at a time: the parsing floor seq2par is compared with on a real tree.
  syntax_only_tree.py <compile_commands.json> <jobs> <file...>   prints seconds"""
import concurrent.futures
import json
import shlex
import subprocess
import sys
import time


def command_for(entry):
    args = entry.get("arguments") or shlex.split(entry["command"])
    out, skip = ["clang++-19", "-fsyntax-only"], False
    for arg in args[1:]:
        if skip:
            skip = False
            continue
        if arg in ("-o", "-c"):
            skip = arg == "-o"
            continue
        out.append(arg)
    return out, entry["directory"]


def main():
    database, jobs, files = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    first = {}
    for entry in json.load(open(database)):
        first.setdefault(entry["file"], entry)
    commands = [command_for(first[f]) for f in files]
    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        codes = list(pool.map(lambda c: subprocess.run(c[0], cwd=c[1], capture_output=True).returncode,
                              commands))
    if any(codes):
        sys.exit("clang++-19 -fsyntax-only failed on %d files" % sum(1 for c in codes if c))
    print("%.6f" % (time.monotonic() - start))


main()
