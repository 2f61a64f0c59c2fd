"""C++: cmake with every test switched on, then make, which builds the tests and runs them
(the exercises' CMakeLists.txt adds the run to the build). cmake names the project for the
folder it is in, so the run happens in a folder named for the exercise. Catch ships with each
exercise; two exercises need Boost's date_time headers from the system."""

from exercism.language import Language
from sandbox import Limits

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
    needs=Limits(seconds=300, cpu_seconds=600, memory=0, processes=256, file_size=0),
)
