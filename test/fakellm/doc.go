// Package fakellm is a scripted fake of the OpenAI HTTP API for tests and
// demos: chat completions (plain JSON and streamed SSE, text and native tool
// calls, error statuses, slow and broken streams), embeddings (deterministic
// hashed bag-of-words vectors), audio transcriptions and the model list. It
// also speaks Anthropic's Messages API (POST /v1/messages: its request
// blocks, its JSON message and its named SSE events, thinking blocks,
// cache usage, error bodies and error events), driven by the same scripts
// and Responder: an Anthropic request is read into the same Request view.
//
// A test starts one with New(t), queues replies with Script and inspects
// what the client sent with Requests. Replies not scripted come from a
// default Responder (Echo unless SetDefault says otherwise; Rules is the
// command-driven one the standalone command cmd/fakellm uses).
//
// Only tests and test helpers import this package; production code never
// does.
package fakellm
