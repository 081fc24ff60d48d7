use std::collections::HashMap;

const MAX: usize = 10;

pub struct Config {
    name: String,
}

pub trait Load {
    fn load(&self) -> Config;
}

impl Config {
    pub fn new(name: &str) -> Self {
        Config { name: name.to_string() }
    }
}

fn parse_config(s: &str) -> Config {
    println!("{}", s);
    Config::new(s)
}
