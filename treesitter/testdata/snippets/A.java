package demo;

import java.util.List;

public class Config {
    public static final int MAX = 10;

    public Config(String name) {
        this.name = name;
    }

    public List<String> parse(String s) {
        return helper(s).split();
    }
}

interface Loader {
    Config load();
}
