#!/usr/bin/env bash
# Says whether two revisions compile to the same machine code, kernel for kernel, without a GPU:
# every benchmark, GPU test and example translation unit of each revision is compiled for sm_90,
# and each kernel's SASS (its code section with the register count it declares, and its shared
# memory size) is looked up among the other revision's kernels of the same unit by content, so a
# kernel renamed or given another template parameter still matches.
#
#     scripts/sass_compare.sh REV_A REV_B
#
# REV_A and REV_B are git revisions, or "." for the working tree; each is compiled with its own
# sources. Prints, per translation unit, how many of A's kernels B has unchanged and names the
# others; kernels only in B (new tuning variants, say) are counted. A kernel whose code is the same
# but whose shared-memory section has another size is named apart (see below). Exit code 0 when
# every kernel of A has its code in B, 1 otherwise. JOBS (default 2) compilations run at once.
#
# What it is for: a change meant to leave the kernels as they are (a refactor, a knob that is off
# by default, a new kernel beside the old) runs the code the GPU suite passed on if every kernel
# of A is in B unchanged. Any other change to device code needs the GPU suite again. (PTX is not
# the measure: the same code often comes out of NVVM with other virtual-register numbers or in
# another order of independent instructions, which ptxas may or may not undo.)
set -euo pipefail
if [ $# -ne 2 ]; then
  sed -n '2,19p' "$0" >&2
  exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PATH=/usr/local/cuda/bin:$PATH

tree() {  # tree REV DIR: the revision's sources under DIR
  mkdir -p "$2"
  if [ "$1" = . ]; then
    (cd "$root" && tar -c include tests benchmarks examples) | tar -x -C "$2"
  else
    git -C "$root" archive "$1" include tests benchmarks examples | tar -x -C "$2"
  fi
}

compile() {  # compile DIR: every unit with device code of the tree at DIR to DIR/sass/<unit>.cubin
  local dir=$1
  mkdir -p "$dir/sass"
  (cd "$dir" && ls benchmarks/*.cu tests/gpu/*.cu examples/*.cu) | xargs -P "${JOBS:-2}" -I{} sh -c \
    'nvcc -std=c++17 -O3 -arch=sm_90 -DNDEBUG -I"$1/include" -cubin "$1/$2" -o "$1/sass/$(echo "$2" | tr / _).cubin"' \
    _ "$dir" {}
}

tree "$1" "$work/a"
tree "$2" "$work/b"
compile "$work/a"
compile "$work/b"

python3 - "$work/a/sass" "$work/b/sass" <<'PY'
import collections, hashlib, os, struct, sys

def kernels(path):
    """kernel name -> (digest of its code section with its flags and info word, which hold the
    register count; the size of its shared memory section), from a 64-bit cubin."""
    data = open(path, "rb").read()
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names_at = headers[shstrndx][4]
    def name(offset):
        end = data.index(b"\0", names_at + offset)
        return data[names_at + offset:end].decode()
    sections = {name(h[0]): h for h in headers}
    out = {}
    for section, h in sections.items():
        if not section.startswith(".text."):
            continue
        kernel = section[len(".text."):]
        shared = sections.get(".nv.shared." + kernel)
        digest = hashlib.sha1(data[h[4]:h[4] + h[5]])
        digest.update(struct.pack("<QI", h[2], h[7] >> 24))  # flags, and the register count
        out[kernel] = (digest.hexdigest(), shared[5] if shared else 0)
    return out

# A kernel whose code is the same but whose shared-memory section is not: the section's size can
# follow the rest of the unit (a unit that instantiates a kernel with dynamic shared memory gives
# every kernel a section of at least 1 KB, and pads the others' to 16 bytes), so it is reported
# apart, as the same code.
a_dir, b_dir = sys.argv[1], sys.argv[2]
missing_total = shared_only_total = 0
for unit in sorted(os.listdir(a_dir)):
    a = kernels(os.path.join(a_dir, unit))
    b_path = os.path.join(b_dir, unit)
    b = kernels(b_path) if os.path.exists(b_path) else {}
    # By content, not by name: a kernel renamed or given another template parameter still matches.
    pool = collections.Counter(b.values())
    rest = []
    for kernel, entry in sorted(a.items()):
        if pool[entry] > 0:
            pool[entry] -= 1
        else:
            rest.append((kernel, entry))
    code_pool = collections.Counter(code for code, _ in pool.elements())
    missing, shared_only = [], []
    for kernel, (code, shared) in rest:
        if code_pool[code] > 0:
            code_pool[code] -= 1
            shared_only.append(kernel)
        else:
            missing.append(kernel)
    missing_total += len(missing)
    shared_only_total += len(shared_only)
    unchanged = len(a) - len(missing) - len(shared_only)
    print(f"{unit}: {unchanged} of {len(a)} kernels unchanged, {len(shared_only)} with the same code but another "
          f"shared-memory section, {sum(code_pool.values())} only in B")
    for kernel in missing:
        print(f"  changed or gone: {kernel}")
    for kernel in shared_only:
        print(f"  same code, shared section differs: {kernel}")
print("every kernel of A is in B with the same code" if missing_total == 0 else f"{missing_total} kernels of A are not in B")
if shared_only_total:
    print(f"{shared_only_total} kernels of A have the same code in B with another shared-memory section size")
sys.exit(0 if missing_total == 0 else 1)
PY
