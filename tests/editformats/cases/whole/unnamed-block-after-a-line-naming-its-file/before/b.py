import os
B = 1
