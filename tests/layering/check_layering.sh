#!/usr/bin/env bash
# The include and namespace rules of docs/architecture.md, checked on the source tree: each
# folder may include only the folders below it on the data path, and opens its own namespace. The build targets make most upward
# reaches link errors; this catches the rest (a header-only use, an include that happens to
# resolve through the shared include root) and names the file and line.
#
#   tests/layering/check_layering.sh [SOURCE_DIR]     exit 0: clean; 1: violations listed
set -uo pipefail
root="${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
cd "$root" || { echo "check_layering: no source tree at $root" >&2; exit 2; }

# folder -> the include prefixes it may use (its own folder is always allowed). Order:
# support < hlo (ir < verifier < parser) < analysis (beside the stages, IR alone) < interpreter/check < profiler < passes/backend
# < codegen < runtime < session < importers/graph/report/viewers < app.
declare -A allowed=(
  [compiler/support]=""
  [compiler/ir]="compiler/support"
  [compiler/verifier]="compiler/support compiler/ir"
  [compiler/parser]="compiler/support compiler/ir compiler/verifier"
  [compiler/analysis]="compiler/support compiler/ir"
  [compiler/interpreter]="compiler/support compiler/ir compiler/verifier compiler/parser"
  [compiler/check]="compiler/support compiler/ir compiler/verifier compiler/parser compiler/interpreter"
  [profiler]="compiler/support compiler/ir compiler/verifier compiler/parser compiler/interpreter"
  [compiler/passes]="compiler/support compiler/ir compiler/verifier compiler/parser compiler/interpreter compiler/check compiler/backend"
  [compiler/backend]="compiler/support compiler/ir compiler/verifier compiler/parser compiler/passes"
  [compiler/codegen]="compiler/support compiler/ir compiler/verifier compiler/parser compiler/interpreter compiler/passes compiler/backend"
  [compiler/runtime]="compiler/support compiler/ir compiler/verifier compiler/parser compiler/interpreter compiler/check compiler/passes compiler/backend compiler/codegen profiler"
  [compiler/session]="compiler/support compiler/ir compiler/verifier compiler/parser compiler/analysis compiler/interpreter compiler/check compiler/passes compiler/backend compiler/codegen compiler/runtime profiler"
  [importers]="compiler/support compiler/ir compiler/verifier compiler/parser compiler/interpreter compiler/check compiler/session profiler"
  [graph]="compiler/support compiler/ir compiler/verifier compiler/parser compiler/passes"
  [report]="compiler/support compiler/ir compiler/verifier compiler/parser compiler/interpreter compiler/check compiler/session profiler graph"
  [viewers]="compiler/support compiler/ir profiler graph"
)
# The project's top-level source folders an include can name.
project_prefix='^(compiler/[a-z_]+|profiler|importers|graph|report|viewers|app)/'

violations=0
complain() { echo "$1"; violations=$((violations + 1)); }

for folder in "${!allowed[@]}"; do
  [ -d "$folder" ] || continue
  while IFS= read -r -d '' file; do
    lineno=0
    while IFS= read -r line; do
      lineno=$((lineno + 1))
      [[ "$line" =~ ^[[:space:]]*#[[:space:]]*include[[:space:]]*([\"\<])([^\"\>]+)[\"\>] ]] || continue
      target="${BASH_REMATCH[2]}"
      # LLVM's headers belong to the code generators alone.
      if [[ "$target" == llvm/* || "$target" == llvm-c/* ]]; then
        [ "$folder" = compiler/codegen ] ||
          complain "$file:$lineno: includes LLVM ($target): only compiler/codegen may"
        continue
      fi
      [[ "$target" =~ $project_prefix ]] || continue
      prefix="${BASH_REMATCH[1]}"
      [ "$prefix" = "$folder" ] && continue
      ok=0
      for a in ${allowed[$folder]}; do [ "$prefix" = "$a" ] && ok=1 && break; done
      [ $ok = 1 ] || complain "$file:$lineno: $folder may not include $target (allowed: ${allowed[$folder]:-nothing})"
    done < "$file"
  done < <(find "$folder" -maxdepth 1 -type f \( -name '*.h' -o -name '*.cc' \) -print0)
done

# A folder under compiler/ or at the top that the rules above do not cover is a new stage:
# it needs a line in this table and in docs/architecture.md.
for dir in compiler/*/ profiler/ importers/ graph/ report/ viewers/; do
  dir="${dir%/}"
  [ -n "${allowed[$dir]+set}" ] || complain "$dir: a source folder without layering rules (add it to tests/layering/check_layering.sh and docs/architecture.md)"
done

# Namespaces follow the folders (docs/architecture.md): a folder's code opens its own
# namespace or one inside it. A block in another namespace may only forward-declare
# (`class X;`, `struct X;`). The HLO vocabulary is the root namespace `fusebox`.
declare -A namespace_of=(
  [compiler/support]=fusebox [compiler/ir]=fusebox [compiler/verifier]=fusebox [compiler/parser]=fusebox
  [compiler/analysis]=fusebox::analysis
  [compiler/interpreter]=fusebox::interpreter [compiler/check]=fusebox::check
  [compiler/passes]=fusebox::passes [compiler/backend]=fusebox::backend
  [compiler/codegen]=fusebox::codegen [compiler/runtime]=fusebox::runtime
  [compiler/session]=fusebox::session [importers]=fusebox::importers [profiler]=fusebox::profiler
  [graph]=fusebox::graph [report]=fusebox::report [viewers]=fusebox::viewers
  [app]=fusebox::cli [app/gui]=fusebox::gui
)
for folder in "${!namespace_of[@]}"; do
  [ -d "$folder" ] || continue
  own="${namespace_of[$folder]}"
  while IFS= read -r -d '' file; do
    while IFS= read -r found; do
      [ -n "$found" ] && complain "$found"
    done < <(awk -v own="$own" -v file="$file" '
      function inside(ns) {
        # The root folders may also open fusebox::<feature>_internal.
        if (own == "fusebox") return ns == "fusebox" || ns ~ /^fusebox::[a-z_]+_internal(::|$)/
        return ns == own || index(ns, own "::") == 1
      }
      /^namespace fusebox[a-z_:]* \{/ {
        ns = $2; start = FNR; foreign = !inside(ns); declares_only = 1; next
      }
      foreign && /^}/ {
        if (!declares_only) print file ":" start ": opens namespace " ns " (" own " expected for this folder; another namespace only to forward-declare)"
        foreign = 0; next
      }
      foreign && !/^[[:space:]]*$/ && !/^[[:space:]]*\/\// && !/^(class|struct) [A-Za-z_0-9]+;/ { declares_only = 0 }
    ' "$file")
  done < <(find "$folder" -maxdepth 1 -type f \( -name '*.h' -o -name '*.cc' \) -print0)
done

if [ $violations -gt 0 ]; then
  echo "check_layering: $violations include(s) or namespace(s) break the layering (docs/architecture.md)"
  exit 1
fi
echo "check_layering: every include and namespace follows the layering (${#allowed[@]} folders)"
