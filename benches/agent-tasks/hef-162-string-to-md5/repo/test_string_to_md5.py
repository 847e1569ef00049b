import math
import unittest

from string_to_md5 import string_to_md5


class TestStringToMd5(unittest.TestCase):
    def test_1(self):
        self.assertEqual(string_to_md5('Hello world'), '3e25960a79dbc69b674cd4ec67a72c62')

    def test_2(self):
        self.assertEqual(string_to_md5(''), None)

    def test_3(self):
        self.assertEqual(string_to_md5('A B C'), '0ef78513b0cb8cef12743f5aeb35f888')

    def test_4(self):
        self.assertEqual(string_to_md5('password'), '5f4dcc3b5aa765d61d8327deb882cf99')


if __name__ == "__main__":
    unittest.main()
