// Package telegram is beamclaw's Telegram channel: a suture service that
// receives updates from the Bot API (long poll through getUpdates, or a
// webhook handler the gateway mounts at POST /webhook/telegram), records
// each one durably in bbolt and de-duplicates it by update_id, applies the
// pairing/allowlist gate of internal/pairing, turns text, photos and voice
// notes (transcribed) into beamclaw.Inbound messages for the session layer,
// and streams each run's answer back as one message edited in place
// (Markdown converted to Telegram HTML, split at 4096 characters), with
// typing indicators, brief tool activity and approval prompts as inline
// keyboards. A group chat is a session of its own (user "tg-group:<chat
// id>"), answered when addressed and only for the members
// groups.members allows; its approvals and questions are answered by the
// member who started the run, whose approval origin they carry
// (group.go).
//
// The bot token is part of every Bot API URL; everything this package logs
// or returns passes through a redactor that replaces it with "<token>".
//
// Only the daemon imports this package (and hands it config as Options).
package telegram
