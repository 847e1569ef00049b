import configparser

PATH = "/etc/kotef-bench/settings.ini"


def mode():
    cfg = configparser.ConfigParser()
    with open(PATH) as f:
        cfg.read_string("[main]\n" + f.read())
    return cfg["main"]["mode"]
