from uvicorn.config import Config
from uvicorn.main import Server, main, run

__version__ = "0.35.0"
__all__ = ["main", "run", "Config", "Server"]
