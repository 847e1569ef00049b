# syntax=docker/dockerfile:1
# The image for `kotef serve`: a static kotef on Alpine with git (to clone and push) and
# bubblewrap (to sandbox the agent's commands), run as a non-root user with its job store and
# workspaces in a volume.
#
#   docker build -t kotef .                      builds kotef from this checkout
#   docker build --build-arg BINARIES=prebuilt   takes dist/image/<arch>/kotef instead (the
#                                                release workflow's static musl builds)
#
# bubblewrap needs user namespaces, which Docker's default seccomp and AppArmor profiles
# refuse; see the README's `docker run` line.
ARG BINARIES=source

FROM rust:1-alpine AS source
# hadolint ignore=DL3018
RUN apk add --no-cache musl-dev
WORKDIR /src
COPY . .
RUN cargo build --release --locked --bin kotef \
    && install -m 0755 target/release/kotef /kotef

FROM scratch AS prebuilt
ARG TARGETARCH
COPY dist/image/${TARGETARCH}/kotef /kotef

FROM ${BINARIES} AS binaries

FROM alpine:3.20
# Packages come from the pinned Alpine branch (3.20).
# hadolint ignore=DL3018
RUN apk add --no-cache bubblewrap ca-certificates git \
    && addgroup -S -g 10001 kotef \
    && adduser -S -D -u 10001 -G kotef -h /var/lib/kotef kotef \
    && mkdir -p /var/lib/kotef \
    && chown kotef:kotef /var/lib/kotef
COPY --from=binaries --chmod=0755 /kotef /usr/local/bin/kotef
ENV KOTEF_DATA_DIR=/var/lib/kotef \
    KOTEF_LISTEN=0.0.0.0:8080 \
    HOME=/var/lib/kotef
VOLUME ["/var/lib/kotef"]
WORKDIR /var/lib/kotef
USER 10001:10001
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s CMD ["wget", "-q", "-O", "/dev/null", "http://127.0.0.1:8080/healthz"]
ENTRYPOINT ["kotef"]
CMD ["serve", "--listen", "0.0.0.0:8080"]
