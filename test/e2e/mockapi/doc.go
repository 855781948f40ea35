// Package mockapi is a model API on 127.0.0.1 that speaks enough of the Anthropic
// Messages API, the OpenAI Chat Completions and Responses APIs and the Gemini API
// for the agent clients to run a prompt against it. It answers every prompt with a
// short text, or once with a tool call: the call that loads a skill (LoadSkill),
// or the call a loaded skill's body asks for (FollowSkill), or the script a loaded
// skill's directory holds (RunFromSkillDir). It records every
// request, and the call it answered it with, so a test can read what the client
// sent.
//
// It imports nothing of this module.
package mockapi
