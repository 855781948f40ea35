# skillsync as a sidecar: a static binary on a distroless base, running as a non-root
# user, writing nothing but the workspace volume (works with a read-only root
# filesystem). See docs/operations.md. One Dockerfile for linux/amd64 and
# linux/arm64: the build stage runs on the builder's platform and cross-compiles,
#   docker buildx build --platform linux/amd64,linux/arm64 \
#     --build-arg VERSION=$(git describe --tags --always) --build-arg COMMIT=$(git rev-parse HEAD) -t skillsync .
FROM --platform=$BUILDPLATFORM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG TARGETOS TARGETARCH VERSION=dev COMMIT= DATE=
RUN CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH go build -trimpath \
      -ldflags "-s -w -X main.version=${VERSION} -X main.commit=${COMMIT} -X main.date=${DATE}" \
      -o /out/skillsync ./cmd/skillsync

# The variant with Node, for mcpSources that start a stdio server with npx or
# node (a static image cannot): the same binary and defaults on Node's image,
# which is built for the same two platforms. Build it with --target node; the
# Kubernetes overlay deploy/kubernetes/overlays/node runs it.
FROM node:22-bookworm-slim AS node
COPY --from=build /out/skillsync /usr/local/bin/skillsync
# 1000 is the Node image's "node" user.
USER 1000:1000
WORKDIR /workspace
EXPOSE 8081
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s CMD ["skillsync", "probe", "http://127.0.0.1:8081/healthz"]
ENV SKILLSYNC_WORKSPACE=/workspace SKILLSYNC_HEALTH_ADDR=:8081 SKILLSYNC_LOG_FORMAT=json NPM_CONFIG_UPDATE_NOTIFIER=false
ENTRYPOINT ["skillsync", "reconcile", "--watch"]

# The default target, last: the static binary alone.
FROM gcr.io/distroless/static-debian12:nonroot AS static
COPY --from=build /out/skillsync /usr/local/bin/skillsync
# 65532 is distroless "nonroot"; run with the workspace owner's uid where it differs.
USER 65532:65532
WORKDIR /workspace
EXPOSE 8081
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s CMD ["skillsync", "probe", "http://127.0.0.1:8081/healthz"]
# Defaults through the environment, so `docker run IMAGE --poll 2s` keeps them.
ENV SKILLSYNC_WORKSPACE=/workspace SKILLSYNC_HEALTH_ADDR=:8081 SKILLSYNC_LOG_FORMAT=json
ENTRYPOINT ["skillsync", "reconcile", "--watch"]
