"""C++: cmake with every test switched on, then make, which builds the tests and runs them
(the exercises' CMakeLists.txt adds the run to the build). cmake names the project for the
folder it is in, so the run happens in a folder named for the exercise. Catch ships with each
exercise; two exercises need Boost's date_time headers from the system. Each test case is
reported as it ends by a listener of Catch's, added to the end of the test file."""

from exercism import refusals
from exercism.language import Language, Report
from sandbox import Limits

LISTENER = """

#include <cstdlib>
#include <string>
#include <unistd.h>

struct CoderReportListener : Catch::TestEventListenerBase {
    using TestEventListenerBase::TestEventListenerBase;
    static void say(std::string line) {
        const char* fd = std::getenv("CODER_REPORT_FD");
        if (fd == nullptr) return;
        for (char& c : line) if (c == '\\n' || c == '\\r') c = ' ';
        line += '\\n';
        if (::write(std::atoi(fd), line.data(), line.size()) < 0) return;
    }
    void testCaseEnded(Catch::TestCaseStats const& stats) override {
        bool passed = stats.totals.assertions.allPassed() && !stats.aborting;
        say(std::string(passed ? "case passed " : "case failed ") + stats.testInfo.name);
        TestEventListenerBase::testCaseEnded(stats);
    }
    void testRunEnded(Catch::TestRunStats const& stats) override {
        say("done");
        TestEventListenerBase::testRunEnded(stats);
    }
};
CATCH_REGISTER_LISTENER(CoderReportListener)
"""
"""Catch's listener, in the tests' own program: each test case as it ends, then the run's end."""

LANGUAGE = Language(
    name="cpp",
    title="C++",
    library="C++ standard library (and Boost where the stubs include it)",
    fence="cpp",
    programs=("cmake", "make", "c++"),
    install="install a C++ toolchain, cmake and Boost (apt-get install g++ cmake make"
    " libboost-date-time-dev)",
    files=("/usr/include/boost/date_time/posix_time/posix_time.hpp",),
    probe=("cmake", "-DEXERCISM_RUN_ALL_TESTS=1", "-G", "Unix Makefiles", "-S", ".", "-B", "build"),
    steps=(("make", "--no-print-directory", "-C", "build"),),
    compile_error=r"(?m)^\S+\.(cpp|h|hpp):\d+:\d+: error:",
    nested=True,
    report=Report(append=("test/tests-main.cpp", LISTENER)),
    refuse=refusals.cpp,
    # bank-account's tests start 1,000 threads, all alive at once on a busy machine; the most
    # the reference solutions used: tests/perf/reference_needs.py.
    needs=Limits(seconds=300, cpu_seconds=600, memory=0, processes=2048, file_size=0),
)
