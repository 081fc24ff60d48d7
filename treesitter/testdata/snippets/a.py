import os
from config import parse_config as pc, load

MAX_SIZE = 10

def parse_config(path):
    """Parse it."""
    with open(path) as f:
        return load(f, strict=True)

class Loader(Base):
    @staticmethod
    def load(self, data):
        return parse_config(data)

    def close(self):
        os.remove(self.path)
