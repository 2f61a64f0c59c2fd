from a import A
B = A
