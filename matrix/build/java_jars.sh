#!/usr/bin/env bash
# Build a Java wrapper of matrix/wrappers/ (a folder with a pom.xml naming the
# library's pinned artifact and one MAIN.java) against the jars Maven copies
# from Maven Central, into DEST/bin/NAME, a launcher that runs the class on
# $MATRIX_JAVA (default: java) with the library's version as matrix.version.
#   usage: java_jars.sh DEST NAME MAIN ARTIFACT
set -euo pipefail
dest=$(realpath "$1")
name=$2
main=$3
artifact=$4
here=$(cd "$(dirname "$0")" && pwd)
src="$here/../wrappers/$name"
mkdir -p "$dest/lib" "$dest/classes" "$dest/bin"
mvn --batch-mode --quiet -f "$src/pom.xml" dependency:copy-dependencies \
    -DoutputDirectory="$dest/lib"
jar=$(basename "$(ls "$dest/lib/$artifact"-[0-9]*.jar)" .jar)
version=${jar#"$artifact"-}
java=${MATRIX_JAVA:-java}
"$(dirname "$(readlink -f "$(command -v "$java")")")/javac" -cp "$dest/lib/*" \
    -d "$dest/classes" "$src/$main.java"
cat > "$dest/bin/$name" <<SH
#!/bin/sh
exec "\${MATRIX_JAVA:-java}" -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \\
    -Dmatrix.version=$version -Dslf4j.internal.verbosity=ERROR \\
    -cp "$dest/classes:$dest/lib/*" $main "\$@"
SH
chmod +x "$dest/bin/$name"
"$dest/bin/$name" --describe
