package protocol

import "testing"

func TestFenceKey(t *testing.T) {
	cases := []struct{ stream, group, want string }{
		{"orders:3", "billing", "{orders:3}:fence:billing"},
		{"orders:0", "a.b_c-d:e", "{orders:0}:fence:a.b_c-d:e"},
		{"orders:12", "a b/c{d}%", "{orders:12}:fence:a%20b%2Fc%7Bd%7D%25"},
		{"{weird}:1", "é", "{{weird}:1}:fence:%C3%A9"},
	}
	for _, c := range cases {
		if got := FenceKey(c.stream, c.group); got != c.want {
			t.Errorf("FenceKey(%q, %q) = %q, want %q", c.stream, c.group, got, c.want)
		}
	}
	// Different groups never share a fence key (the encoding is injective).
	if FenceKey("s:0", "a%20") == FenceKey("s:0", "a ") {
		t.Fatal("escaped and unescaped group names collide")
	}
}
