"""C++: cmake with every test switched on, then make, which builds the tests and runs them
(the exercises' CMakeLists.txt adds the run to the build). cmake names the project for the
folder it is in, so the run happens in a folder named for the exercise. Catch ships with each
exercise; two exercises need Boost's date_time headers from the system."""

from exercism.canary import FILE_VARIABLE, NAME, TOKEN_VARIABLE, Canary
from exercism.language import Language
from sandbox import Limits

CANARY = Canary(
    into="*_test.cpp",
    code=f"""

#include <cstdlib>
#include <fstream>

TEST_CASE("{NAME}") {{
    std::ofstream(std::getenv("{FILE_VARIABLE}"), std::ios::app)
        << std::getenv("{TOKEN_VARIABLE}") << "\\n";
}}
""",
)
"""The harness's last test, at the end of the test file (Catch 2 runs the tests in the order
they are declared)."""

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
    passed=r"All tests passed",
    nested=True,
    canary=CANARY,
    # bank-account's tests start 1,000 threads, all alive at once on a busy machine; the most
    # the reference solutions used: tests/perf/reference_needs.py.
    needs=Limits(seconds=300, cpu_seconds=600, memory=0, processes=2048, file_size=0),
)
