VOTING_AGE = 18


def can_vote(age):
    return age > VOTING_AGE
