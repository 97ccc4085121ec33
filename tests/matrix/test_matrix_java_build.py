"""matrix/build/java_jars.sh: a launcher that maps an AppCDS archive of its classes.

Built offline from a stand-in library: a fake ``mvn`` copies a jar made here
into ``lib/``, as Maven copies the pinned artifact from Maven Central.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SAMPLE = "y_dtype_f32_values.safetensors"

LIB = """
package demo;
public final class Lib {
    private Lib() {}
    public static String verdict(long size) {
        return size > 8 ? "accepted" : "rejected";
    }
}
"""

MAIN = """
import java.nio.file.Files;
import java.nio.file.Path;
public final class Demo {
    public static void main(String[] args) throws Exception {
        if (args[0].equals("--describe")) {
            System.out.println("{\\"protocol\\":2,\\"version\\":\\""
                + System.getProperty("matrix.version") + "\\"}");
            return;
        }
        long size = Files.size(Path.of(args[0]));
        System.out.println("{\\"result\\":\\"" + demo.Lib.verdict(size) + "\\"}");
    }
}
"""

FAKE_MVN = """#!/bin/sh
for arg in "$@"; do
    case "$arg" in -DoutputDirectory=*) out="${arg#-DoutputDirectory=}" ;; esac
done
mkdir -p "$out" && cp "$DEMO_JAR" "$out/"
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    javac, jar_tool = shutil.which("javac"), shutil.which("jar")
    if javac is None or jar_tool is None:
        pytest.skip("needs a JDK (javac, jar)")
    root = tmp_path_factory.mktemp("java")
    # the script's own layout: matrix/build/, matrix/wrappers/NAME/, corpus/files/
    (root / "matrix" / "build").mkdir(parents=True)
    shutil.copy(REPO / "matrix" / "build" / "java_jars.sh", root / "matrix" / "build")
    wrapper = root / "matrix" / "wrappers" / "java_demo"
    wrapper.mkdir(parents=True)
    (wrapper / "pom.xml").write_text("<project/>\n")
    (wrapper / "Demo.java").write_text(MAIN)
    (root / "corpus" / "files").mkdir(parents=True)
    shutil.copy(REPO / "corpus" / "files" / SAMPLE, root / "corpus" / "files")
    lib = root / "lib-src"
    (lib / "demo").mkdir(parents=True)
    (lib / "demo" / "Lib.java").write_text(LIB)
    subprocess.run(
        [javac, "-d", str(lib / "out"), str(lib / "demo" / "Lib.java")], check=True
    )
    jar = root / "demo-lib-1.2.3.jar"
    subprocess.run(
        [jar_tool, "--create", "--file", str(jar), "-C", str(lib / "out"), "."],
        check=True,
    )
    tools = root / "tools"
    tools.mkdir()
    (tools / "mvn").write_text(FAKE_MVN)
    (tools / "mvn").chmod(0o755)
    env = {**os.environ, "PATH": f"{tools}{os.pathsep}{os.environ['PATH']}"}
    env["DEMO_JAR"] = str(jar)
    env.pop("JAVA_TOOL_OPTIONS", None)
    dest = root / "dest"
    script = root / "matrix" / "build" / "java_jars.sh"
    subprocess.run(
        [str(shutil.which("bash")), str(script), str(dest),
         "java_demo", "Demo", "demo-lib"],
        env=env, check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    return dest, env


def _load(dest: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(dest / "bin" / "java_demo"), str(REPO / "corpus" / "files" / SAMPLE)],
        env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


def test_the_launcher_maps_the_archive_built_with_it(
    built: tuple[Path, dict[str, str]],
) -> None:
    dest, env = built
    assert (dest / "java_demo.jsa").stat().st_size > 0
    # -Xshare:on: the JVM refuses to start unless it can map the archive
    done = _load(dest, {**env, "JAVA_TOOL_OPTIONS": "-Xshare:on"})
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"result": "accepted"}
    assert "-Dmatrix.version=1.2.3" in (dest / "bin" / "java_demo").read_text()


def test_a_stale_archive_never_reaches_the_answer(
    built: tuple[Path, dict[str, str]],
) -> None:
    dest, env = built
    jar = dest / "lib" / "demo-lib-1.2.3.jar"
    stat = jar.stat()
    os.utime(jar, (stat.st_atime, stat.st_mtime + 60))  # no longer the archived jar
    try:
        refused = _load(dest, {**env, "JAVA_TOOL_OPTIONS": "-Xshare:on"})
        done = _load(dest, env)
    finally:
        os.utime(jar, (stat.st_atime, stat.st_mtime))
    assert refused.returncode != 0  # the JVM saw the archive is stale
    assert done.returncode == 0, done.stderr
    # without it, the load goes on: stdout is the answer alone
    assert done.stdout == '{"result":"accepted"}\n'
