#!/usr/bin/env bash
# Build a Java wrapper of matrix/wrappers/ (a folder with a pom.xml naming the
# library's pinned artifact and one MAIN.java) against the jars Maven copies
# from Maven Central, into DEST/bin/NAME, a launcher that runs the class on
# $MATRIX_JAVA (default: java) with the library's version as matrix.version.
# MIN_JDK: a library built for a newer JDK than the default one is compiled and
# run with the first JDK under /usr/lib/jvm whose release is at least MIN_JDK
# (the machine has a Temurin 25 beside JDK 17); JVM_OPTION...: more options
# for the launcher (an incubator module the library needs).
# Each load is one JVM, so start-up is most of a case's cost: the build also
# writes an AppCDS archive (DEST/NAME.jsa) of the classes one load of a small
# corpus file uses, which the launcher maps instead of parsing and verifying
# them again (the archive holds the jars' paths and times, so it is built with
# them: a new pin or source is a new build).  JVM log lines go to stderr, never
# into the answer on stdout (a stale archive is only a warning there).
#   usage: java_jars.sh DEST NAME MAIN ARTIFACT [MIN_JDK [JVM_OPTION...]]
set -euo pipefail
dest=$(realpath "$1")
name=$2
main=$3
artifact=$4
min_jdk=${5:-}
jvm_options=("${@:6}")
java=${MATRIX_JAVA:-java}
if [ -n "$min_jdk" ]; then
    java=
    for home in /usr/lib/jvm/*; do
        major=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$home/release" 2>/dev/null || true)
        if [ -n "$major" ] && [ "$major" -ge "$min_jdk" ] && [ -x "$home/bin/javac" ]; then
            java="$home/bin/java"
            break
        fi
    done
    if [ -z "$java" ]; then
        echo "no JDK >= $min_jdk under /usr/lib/jvm" >&2
        exit 1
    fi
    # the chosen JDK's java, for the reproducers (matrix.findings_check)
    mkdir -p "$dest/bin"
    ln -sf "$java" "$dest/bin/java"
fi
here=$(cd "$(dirname "$0")" && pwd)
src="$here/../wrappers/$name"
mkdir -p "$dest/lib" "$dest/classes" "$dest/bin"
mvn --batch-mode --quiet -f "$src/pom.xml" dependency:copy-dependencies \
    -DoutputDirectory="$dest/lib"
jar=$(basename "$(ls "$dest/lib/$artifact"-[0-9]*.jar)" .jar)
version=${jar#"$artifact"-}
jdk_bin=$(dirname "$(readlink -f "$(command -v "$java")")")
"$jdk_bin/javac" -cp "$dest/lib/*" -d "$dest/classes" "$src/$main.java"
# AppCDS archives classes from jars only, not from a folder
"$jdk_bin/jar" --create --file "$dest/$name.jar" -C "$dest/classes" .
classpath="$dest/$name.jar:$dest/lib/*"
options=(-XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xlog:disable -Xlog:all=warning:stderr
    "${jvm_options[@]}")
sample="$here/../../corpus/files/y_dtype_f32_values.safetensors"
"$java" "${options[@]}" -cp "$classpath" -XX:DumpLoadedClassList="$dest/$name.classlist" \
    -Dslf4j.internal.verbosity=ERROR "$main" "$sample" >/dev/null
"$java" "${options[@]}" -cp "$classpath" -Xshare:dump -XX:SharedClassListFile="$dest/$name.classlist" \
    -XX:SharedArchiveFile="$dest/$name.jsa" >"$dest/$name.jsa.log" 2>&1
cat > "$dest/bin/$name" <<SH
#!/bin/sh
exec "\${MATRIX_JAVA:-$java}" ${options[*]} -XX:SharedArchiveFile="$dest/$name.jsa" \\
    -Dmatrix.version=$version -Dslf4j.internal.verbosity=ERROR -cp "$classpath" $main "\$@"
SH
chmod +x "$dest/bin/$name"
"$dest/bin/$name" --describe
