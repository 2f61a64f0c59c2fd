import unittest

from running_total import running_total


class RunningTotalTest(unittest.TestCase):
    def test_no_numbers(self):
        self.assertEqual(running_total([]), [])

    def test_one_number(self):
        self.assertEqual(running_total([7]), [7])

    def test_several_numbers(self):
        self.assertEqual(running_total([3, 1, 4]), [3, 4, 8])

    def test_negative_numbers(self):
        self.assertEqual(running_total([5, -2, -3]), [5, 3, 0])
