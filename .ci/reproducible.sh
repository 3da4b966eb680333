#!/usr/bin/env bash
# Proves that two builds of one commit give the same archives: builds the published artifacts of a
# copy of this tree (its files as git sees them, in another directory) and compares the checksums
# of every jar (classes, sources, javadoc, test kit) and every POM with those of this tree's build,
# which must have run `./gradlew publishToMavenLocal` before. Prints one line per difference and
# "reproducible: N archives and POMs identical"; exits non-zero when any differs or is missing.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mkdir -p "$tmp/src"
git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf - | (cd "$tmp/src" && tar -xf -)
if ! (cd "$tmp/src" && ./gradlew -q publishToMavenLocal -Dmaven.repo.local="$tmp/m2" >"$tmp/build.log" 2>&1); then
    tail -40 "$tmp/build.log"
    echo "reproducible: the second build failed"
    exit 1
fi

list() { (cd "$1" && find . -path ./examples -prune -o \( -path '*/build/libs/*.jar' -o -path '*/build/publications/*/pom-default.xml' \) -print | sort); }
files=$(list "$root")
if [ -z "$files" ]; then
    echo "reproducible: no archive in this tree; run ./gradlew publishToMavenLocal first"
    exit 1
fi
same=0
differ=0
for f in $files; do
    if [ ! -f "$tmp/src/$f" ]; then
        echo "reproducible: $f is missing from the second build"
        differ=$((differ + 1))
    elif [ "$(sha256sum < "$root/$f")" != "$(sha256sum < "$tmp/src/$f")" ]; then
        echo "reproducible: $f differs between two builds"
        differ=$((differ + 1))
    else
        same=$((same + 1))
    fi
done
if [ "$differ" -gt 0 ]; then
    echo "reproducible: $differ of $((same + differ)) archives and POMs differ"
    exit 1
fi
echo "reproducible: $same archives and POMs identical"
