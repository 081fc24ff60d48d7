import { readFile } from "fs";
import * as path from 'path';

export const DEFAULT_NAME = "x";

export interface Options {
  name: string;
}

type Mode = "a" | "b";

export class Loader extends Base {
  constructor(private opts: Options) {
    super();
  }

  load(file: string): Options {
    return parseConfig(readFile(file));
  }
}

export function parseConfig(s: string): Options {
  return new Loader({ name: s }).opts;
}

const helper = (x: number) => x + 1;
