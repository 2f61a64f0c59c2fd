import os
B = 2
