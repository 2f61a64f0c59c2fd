import unittest

from initials import initials


class InitialsTest(unittest.TestCase):
    def test_two_words(self):
        self.assertEqual(initials("ada lovelace"), "AL")

    def test_hyphenated_name(self):
        self.assertEqual(initials("Jean-Paul Sartre"), "JPS")

    def test_extra_spaces(self):
        self.assertEqual(initials("  grace   hopper "), "GH")
