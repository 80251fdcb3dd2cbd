#!/usr/bin/env bash
# The format check (ctest format.clang_format): every C++ and CUDA file of app/ core/ views/
# importers/ tests/ bench/ is as clang-format 14 (Debian 12's clang-format-14, pinned: other
# versions format some constructs differently) formats it with the repository's
# .clang-format. Lists the files that are not and fails; `make format` fixes them.
# usage: check-format.sh SOURCE_DIR [CLANG_FORMAT]
set -uo pipefail
src=${1:?usage: check-format.sh SOURCE_DIR [CLANG_FORMAT]}
cf=${2:-clang-format-14}
if ! command -v "$cf" >/dev/null 2>&1; then
  echo "check-format: $cf not found: install Debian's clang-format-14 (packaging/install-deps.sh)" >&2
  exit 1
fi
if ! "$cf" --version | grep -q "version 14\."; then
  echo "check-format: $cf is not clang-format 14: $("$cf" --version)" >&2
  exit 1
fi
cd "$src" || exit 1
mapfile -t files < <(find app core views importers tests bench -type f \
  \( -name '*.cpp' -o -name '*.h' -o -name '*.cu' \) | sort)
# One run over all of them; the files it names in its errors are the unformatted ones.
mapfile -t bad < <("$cf" --style=file --dry-run --Werror "${files[@]}" 2>&1 |
  grep -oE '^[^: ]+\.(cpp|h|cu):[0-9]+:[0-9]+: error' | cut -d: -f1 | sort -u)
if [[ ${#bad[@]} -gt 0 ]]; then
  echo "check-format: ${#bad[@]} of ${#files[@]} files are not formatted (make format fixes them):"
  printf '  %s\n' "${bad[@]}"
  exit 1
fi
echo "check-format: ${#files[@]} files formatted"
