"""Java: the exercises' Gradle wrapper downloads Gradle, which a contained, offline run cannot
do, so the tests are compiled with javac and run by JUnit 5's console launcher, with the jars
their build files name (JUnit, AssertJ, RxJava, org.json) fetched by --prepare through Maven.
`@Disabled` is taken out of the tests, bare or with a reason. Once compiled, the tests'
sources are deleted, and each test is reported as it ends by a JUnit listener of the
harness's."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from exercism import refusals
from exercism.exercise import Exercise
from exercism.language import Language, Report
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
CLASSPATH = "{cache}/java/jars/*:{here}/.build"
"""The jars first: no class of a solution's can stand in for one of theirs."""

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


LISTENER = """package coder.report;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;

public final class Listener implements TestExecutionListener {
    private final OutputStream out = open();
    private TestPlan plan;

    private static OutputStream open() {
        String fd = System.getenv("CODER_REPORT_FD");
        try {
            return fd == null ? null : new FileOutputStream("/dev/fd/" + fd);
        } catch (IOException e) {
            return null;
        }
    }

    private synchronized void say(String line) {
        if (out == null) {
            return;
        }
        try {
            String one = line.replace('\\n', ' ').replace('\\r', ' ') + "\\n";
            out.write(one.getBytes(StandardCharsets.UTF_8));
            out.flush();
        } catch (IOException e) {
            // the report is gone: the run's end will show the tests that never said
        }
    }

    private void sayTests(String outcome, TestIdentifier id) {
        if (id.isTest()) {
            say("case " + outcome + " " + id.getUniqueId());
        } else if (plan != null) {
            for (TestIdentifier test : plan.getDescendants(id)) {
                if (test.isTest()) {
                    say("case " + outcome + " " + test.getUniqueId());
                }
            }
        }
    }

    @Override
    public void testPlanExecutionStarted(TestPlan plan) {
        this.plan = plan;
    }

    @Override
    public void executionSkipped(TestIdentifier id, String reason) {
        sayTests("skipped", id);
    }

    @Override
    public void executionFinished(TestIdentifier id, TestExecutionResult result) {
        switch (result.getStatus()) {
            case SUCCESSFUL -> {
                if (id.isTest()) {
                    say("case passed " + id.getUniqueId());
                }
            }
            case ABORTED -> sayTests("aborted", id);
            default -> {
                if (id.isTest()) {
                    say("case failed " + id.getUniqueId());
                } else {
                    say("error " + id.getUniqueId());
                }
            }
        }
    }

    @Override
    public void testPlanExecutionFinished(TestPlan plan) {
        say("done");
    }
}
"""
"""JUnit's listener, in the launcher's own process: each test as it ends, a test class that
failed as a whole, then the run's end. Compiled with the tests; found by the launcher through
the service file beside the classes."""
SERVICE = "META-INF/services/org.junit.platform.launcher.TestExecutionListener"
REPORT = Report(
    files={
        ".coder-report/coder/report/Listener.java": LISTENER,
        f".build/{SERVICE}": "coder.report.Listener\n",
    },
)


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
            "glob:.coder-report/**/*.java",
        ),
        # The tests' sources go once compiled: no solution reads its answers from them.
        ("find", "src/test", "-name", "*.java", "-delete"),
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
        ),
    ),
    unskip=((r"@Disabled\b(\([^)]*\))?", ""),),
    compile_error=r"(?m)^\S+\.java:\d+: error:",
    extra_files=("src/main/java/*.java",),
    report=REPORT,
    refuse=refusals.java,
    noise=(r"after \d+ ms",),
    # bank-account's tests start 1,000 threads beside the JVM's own, and alphametics took 120 s
    # on a busy machine; the most the reference solutions used: tests/perf/reference_needs.py.
    needs=Limits(seconds=300, cpu_seconds=600, memory=0, processes=2048, file_size=0),
    prepare=prepare,
)
