const fs = require("fs");
import { join } from "path";

const LIMIT = 5;

function parseConfig(text) {
  return JSON.parse(text);
}

class Store {
  get(key) {
    return this.items.find(key);
  }
}

const run = async () => { parseConfig(fs.readFileSync("x")); };
