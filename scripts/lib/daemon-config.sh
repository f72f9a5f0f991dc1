# daemon-config.sh — sourced by bench-load.sh and measure.sh: the config of
# a daemon under measurement, written once.

# write_daemon_config FILE FAKE_URL [EXTRA_CORE_YAML [EXTRA_YAML]]: writes
# FILE: the fake provider at FAKE_URL, the public listener on port 0, the
# rate limit off. EXTRA_CORE_YAML is more keys of core (indented two
# spaces), EXTRA_YAML more sections.
write_daemon_config() {
	local file=$1 fake=$2 core=${3:-} more=${4:-}
	{
		cat <<-EOF
			core:
			  default_provider: fake
			  providers:
			    fake: {base_url: "$fake", model: fake-model}
		EOF
		[[ -z $core ]] || printf '%s\n' "$core"
		cat <<-EOF
			gateway:
			  http: {addr: "127.0.0.1:0"}
			  rate_limit: {enabled: false}
		EOF
		[[ -z $more ]] || printf '%s\n' "$more"
	} >"$file"
}
