"""Java: the exercises' Gradle wrapper downloads Gradle, which a contained, offline run cannot
do, so the tests are compiled with javac and run by JUnit 5's console launcher, with the jars
their build files name (JUnit, AssertJ, RxJava, org.json) fetched by --prepare through Maven.
`@Disabled` is taken out of the tests, bare or with a reason."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from exercism.canary import FILE_VARIABLE, NAME, TOKEN_VARIABLE, Canary
from exercism.exercise import Exercise
from exercism.language import Language
from exercism.prepare import run
from sandbox import Limits

JARS = (
    ("org.junit.platform", "junit-platform-console-standalone", "1.10.0"),
    ("org.assertj", "assertj-core", "3.25.1"),
    ("io.reactivex.rxjava2", "rxjava", "2.2.12"),
    ("org.json", "json", "20190722"),
)
"""The test and solution dependencies of the exercises' build.gradle files (JUnit's console
launcher at the version of their junit-bom), fetched with their own dependencies."""
CLASSPATH = "{here}/.build:{cache}/java/jars/*"

POM = """<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>coder.benchmark</groupId>
  <artifactId>polyglot-java</artifactId>
  <version>1</version>
  <dependencies>
{dependencies}
  </dependencies>
</project>
"""
DEPENDENCY = (
    "    <dependency><groupId>{0}</groupId><artifactId>{1}</artifactId>"
    "<version>{2}</version></dependency>"
)


def prepare(folder: Path, exercises: Sequence[Exercise], say: Callable[[str], None]) -> None:
    """The jars and what they depend on, copied by Maven into folder/jars."""
    names = ", ".join(f"{a} {v}" for _, a, v in JARS)
    say(f"fetching {names} from Maven Central")
    dependencies = "\n".join(DEPENDENCY.format(*jar) for jar in JARS)
    (folder / "pom.xml").write_text(POM.format(dependencies=dependencies))
    goal = "dependency:copy-dependencies"
    run(["mvn", "-q", "-B", goal, f"-DoutputDirectory={folder / 'jars'}"], folder)
    (folder / "pom.xml").unlink()


CANARY_CLASS = "zzzzCoderCanaryTest"
CANARY = Canary(
    file=f"src/test/java/{CANARY_CLASS}.java",
    code=f"""import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;

public class {CANARY_CLASS} {{
    @Test
    public void {NAME}() throws Exception {{
        Files.writeString(
            Path.of(System.getenv("{FILE_VARIABLE}")),
            System.getenv("{TOKEN_VARIABLE}") + "\\n",
            StandardOpenOption.CREATE,
            StandardOpenOption.APPEND);
    }}
}}
""",
)
"""The harness's last test, a class of its own: the launcher runs the classes in the order of
their names (see ORDER), and a lower-case z comes after every package's and class's."""
ORDER = "junit.jupiter.testclass.order.default=org.junit.jupiter.api.ClassOrderer$ClassName"


LANGUAGE = Language(
    name="java",
    title="Java",
    library="Java standard library",
    fence="java",
    programs=("javac", "java"),
    install="install a JDK 17 or newer (apt-get install openjdk-17-jdk-headless)",
    system=("/etc/java-*",),
    probe=("java", "-version"),
    steps=(
        (
            "javac",
            "-d",
            "{here}/.build",
            "-encoding",
            "UTF-8",
            "-cp",
            CLASSPATH,
            "glob:src/main/java/**/*.java",
            "glob:src/test/java/**/*.java",
        ),
        (
            "java",
            "-cp",
            CLASSPATH,
            "org.junit.platform.console.ConsoleLauncher",
            "execute",
            "--scan-class-path",
            "--disable-banner",
            "--details=summary",
            "--fail-if-no-tests",
            f"--config={ORDER}",
        ),
    ),
    unskip=((r"@Disabled\b(\([^)]*\))?", ""),),
    compile_error=r"(?m)^\S+\.java:\d+: error:",
    passed=r"(?s)\[\s*[1-9]\d* tests successful\s*\].*\[\s*0 tests failed\s*\]",
    extra_files=("src/main/java/*.java",),
    canary=CANARY,
    noise=(r"after \d+ ms",),
    # bank-account's tests start 1,000 threads beside the JVM's own, and alphametics took 120 s
    # on a busy machine; the most the reference solutions used: tests/perf/reference_needs.py.
    needs=Limits(seconds=300, cpu_seconds=600, memory=0, processes=2048, file_size=0),
    prepare=prepare,
)
