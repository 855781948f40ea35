package mockapi

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

func post(t *testing.T, url, body string) string {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("%s: %d %s", url, resp.StatusCode, b)
	}
	return string(b)
}

func TestAnswersAndRecords(t *testing.T) {
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	var msg struct {
		Content []struct{ Text string }
	}
	json.Unmarshal([]byte(post(t, s.URL+"/v1/messages", `{"model":"m","messages":[]}`)), &msg)
	if len(msg.Content) != 1 || msg.Content[0].Text != Reply {
		t.Errorf("anthropic plain reply = %+v", msg)
	}
	stream := post(t, s.URL+"/v1/messages", `{"stream":true}`)
	var events []string
	sc := bufio.NewScanner(strings.NewReader(stream))
	for sc.Scan() {
		if e, ok := strings.CutPrefix(sc.Text(), "event: "); ok {
			events = append(events, e)
		}
	}
	if strings.Join(events, ",") != "message_start,content_block_start,content_block_delta,content_block_stop,message_delta,message_stop" || !strings.Contains(stream, Reply) {
		t.Errorf("anthropic stream:\n%s", stream)
	}

	var chat struct {
		Choices []struct{ Message struct{ Content string } }
	}
	json.Unmarshal([]byte(post(t, s.URL+"/v1/chat/completions", `{"messages":[]}`)), &chat)
	if len(chat.Choices) != 1 || chat.Choices[0].Message.Content != Reply {
		t.Errorf("openai plain reply = %+v", chat)
	}
	if got := post(t, s.URL+"/v1/chat/completions", `{"stream":true}`); !strings.Contains(got, Reply) || !strings.HasSuffix(got, "data: [DONE]\n\n") {
		t.Errorf("openai stream:\n%s", got)
	}
	resp, err := http.Get(s.URL + "/v1/models")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("models: %v %v", resp, err)
	}
	resp.Body.Close()

	reqs := s.Requests()
	if len(reqs) != 5 || reqs[0].Path != "/v1/messages" || string(reqs[0].Body) != `{"model":"m","messages":[]}` || reqs[4].Method != "GET" {
		t.Errorf("recorded %+v", reqs)
	}
	s.Reset()
	if len(s.Requests()) != 0 {
		t.Error("Reset kept requests")
	}
}
