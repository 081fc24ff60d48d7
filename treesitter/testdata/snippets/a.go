package config

import (
	"fmt"
	"strings"
)

const MaxSize = 10

type Config struct {
	Name string
}

type Alias = Config

func ParseConfig(s string) (*Config, error) {
	return &Config{Name: strings.TrimSpace(s)}, nil
}

func (c *Config) String() string {
	return fmt.Sprintf("%s", c.Name)
}
