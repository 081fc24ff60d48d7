package treesitter

import (
	"strings"
	"testing"
)

// TestInstanceNames: a method named through a variable (`client.get`)
// binds to the method of the type the same document constructs the
// variable as, when that construction is visible and the only assignment
// of the variable.
func TestInstanceNames(t *testing.T) {
	pyClient := map[string]string{
		"pkg/_client.py": "class Client:\n    def get(self, url):\n        pass\n\nclass AsyncClient:\n    async def get(self, url):\n        pass\n",
	}
	runProseCases(t, []proseCase{
		{"python construction", pyClient,
			"```python\nhttp = pkg.Client(timeout=5)\n```\n\nThen `http.get(url)` fetches.\n", "pkg/_client.py#Client.get"},
		{"python async with", pyClient,
			"```py\nasync with pkg.AsyncClient() as ac:\n    r = await ac.get(url)\n```\n\nAwait `ac.get`.\n", "pkg/_client.py#AsyncClient.get"},
		{"python with, two on one line", pyClient,
			"```python\nwith pkg.Client() as c, pkg.AsyncClient() as ac:\n    pass\n```\n\nCall `c.get`.\n", "pkg/_client.py#Client.get"},
		{"without the construction it stays ambiguous", pyClient,
			"Then `http.get(url)` fetches.\n", "unresolved"},
		{"two constructions of different types", pyClient,
			"```python\nhttp = pkg.Client()\n```\n\n```python\nhttp = pkg.AsyncClient()\n```\n\nThen `http.get(url)`.\n", "unresolved"},
		{"another assignment of the variable", pyClient,
			"```python\nhttp = pkg.Client()\nhttp = make_client()\n```\n\nThen `http.get(url)`.\n", "unresolved"},
		{"the same construction twice", pyClient,
			"```python\nhttp = pkg.Client()\n```\n\n```python\nhttp = pkg.Client(timeout=1)\n```\n\nThen `http.get(url)`.\n", "pkg/_client.py#Client.get"},
		{"a function's result is no construction", map[string]string{"pkg/_client.py": pyClient["pkg/_client.py"], "pkg/_api.py": "def open_client():\n    pass\n"},
			"```python\nhttp = pkg.open_client()\n```\n\nThen `http.get(url)`.\n", "unresolved"},
		{"a method of the constructed value is no construction", map[string]string{"pkg/_client.py": pyClient["pkg/_client.py"], "pkg/path.py": "class Path:\n    def get(self):\n        pass\n"},
			"```python\ntext = Path(\"a\").read_text()\n```\n\nThen `text.get()`.\n", "unresolved"},
		{"rust unwrap keeps the type", map[string]string{"src/book.rs": "pub struct MDBook {}\nimpl MDBook {\n    pub fn build(&self) {}\n}\npub struct Renderer {}\nimpl Renderer {\n    pub fn build(&self) {}\n}\n"},
			"```rust\nlet md = MDBook::load(\"book\").unwrap();\n```\n\nCall `md.build()`.\n", "src/book.rs#MDBook.build"},
		{"go: the error of a constructor is not the instance", map[string]string{"client.go": "package api\n\ntype Client struct{}\n\nfunc (c *Client) Error() {}\n\ntype Server struct{}\n\nfunc (s *Server) Error() {}\n"},
			"```go\nc, err := api.NewClient(opts)\n```\n\nPrint `err.Error()`.\n", "unresolved"},
		{"go: the first of two results is", map[string]string{"client.go": "package api\n\ntype Client struct{}\n\nfunc (c *Client) Do() {}\n\ntype Server struct{}\n\nfunc (s *Server) Do() {}\n"},
			"```go\nc, err := api.NewClient(opts)\n```\n\nThen `c.Do()`.\n", "client.go#Client.Do"},
		{"a construction in prose is not code", pyClient,
			"Write `http = pkg.Client()` and then `http.get(url)`.\n", "unresolved"},
		{"rust let with a constructor", map[string]string{"src/book.rs": "pub struct MDBook {}\nimpl MDBook {\n    pub fn build(&self) {}\n}\npub struct Renderer {}\nimpl Renderer {\n    pub fn build(&self) {}\n}\n"},
			"```rust,ignore\nlet mut md = MDBook::load(\"book\")?;\n```\n\nCall `md.build()`.\n", "src/book.rs#MDBook.build"},
		{"rust let with a function that is no constructor", map[string]string{"src/book.rs": "pub struct MDBook {}\nimpl MDBook {\n    pub fn build(&self) {}\n}\npub struct Renderer {}\nimpl Renderer {\n    pub fn build(&self) {}\n}\n"},
			"```rust\nlet md = MDBook::builder();\n```\n\nCall `md.build()`.\n", "unresolved"},
		{"go constructor function", map[string]string{"client.go": "package api\n\ntype Client struct{}\n\nfunc (c *Client) Do() {}\n\ntype Server struct{}\n\nfunc (s *Server) Do() {}\n"},
			"```go\nc := api.NewClient(opts)\n```\n\nThen `c.Do()`.\n", "client.go#Client.Do"},
		{"go composite literal", map[string]string{"client.go": "package api\n\ntype Client struct{}\n\nfunc (c *Client) Do() {}\n\ntype Server struct{}\n\nfunc (s *Server) Do() {}\n"},
			"```go\nsrv := &api.Server{Addr: \":80\"}\n```\n\nThen `srv.Do()`.\n", "client.go#Server.Do"},
		{"javascript new", map[string]string{"src/client.ts": "export class ApiClient {\n\tget(url: string) {}\n}\nexport class Cache {\n\tget(key: string) {}\n}\n"},
			"```js\nconst api = new ApiClient({ base: '/' });\n```\n\nUse `api.get('/x')`.\n", "src/client.ts#ApiClient.get"},
		{"typescript new with a type annotation", map[string]string{"src/client.ts": "export class ApiClient {\n\tget(url: string) {}\n}\nexport class Cache {\n\tget(key: string) {}\n}\n"},
			"```ts\nconst api: ApiClient = new ApiClient();\n```\n\nUse `api.get('/x')`.\n", "src/client.ts#ApiClient.get"},
		{"java new", map[string]string{"src/Client.java": "public class ApiClient {\n  public void get(String url) {}\n}\nclass Cache {\n  public void get(String key) {}\n}\n"},
			"```java\nApiClient api = new ApiClient(\"/\");\n```\n\nUse `api.get(url)`.\n", "src/Client.java#ApiClient.get"},
		{"a construction in a language lunad does not parse", map[string]string{"src/client.ts": "export class ApiClient {\n\tget(url: string) {}\n}\nexport class Cache {\n\tget(key: string) {}\n}\n"},
			"```text\nconst api = new ApiClient({ base: '/' });\n```\n\nUse `api.get('/x')`.\n", "unresolved"},
	})
}

// FuzzInstances: on any example text, every variable read is a name the
// text assigns, constructed as a capitalised type.
func FuzzInstances(f *testing.F) {
	f.Add(uint8(0), "http = pkg.Client(timeout=5)\nwith A() as a, B(x(1)) as b:\n    pass\n")
	f.Add(uint8(1), "let mut md = MDBook::load(\"b\")?;\nlet c = Config { a: 1 };\n")
	f.Add(uint8(2), "c := api.NewClient(o)\nsrv := &api.Server{}\nc = x\n")
	f.Add(uint8(3), "const api = new ApiClient({});\nlet $x = await new a.B<T>();\n")
	langs := []string{LangPython, LangRust, LangGo, LangJavaScript, LangTypeScript, LangJava}
	f.Fuzz(func(t *testing.T, lang uint8, code string) {
		l := langs[int(lang)%len(langs)]
		for v, typ := range instances(map[string][]string{l: {code}}) {
			if !strings.Contains(code, v) || !strings.Contains(code, typ) {
				t.Fatalf("%s -> %s is not in %q", v, typ, code)
			}
			if typ == "" || typ[0] < 'A' || typ[0] > 'Z' || !symbolLike().MatchString(v) {
				t.Fatalf("%q -> %q: not a variable and a type", v, typ)
			}
		}
	})
}
