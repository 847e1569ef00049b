from util import exclaim


def shout(s):
    return exclaim(s.upper())
