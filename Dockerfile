# skillsync as a sidecar: a static binary on a distroless base, running as a non-root
# user, writing nothing but the workspace volume (works with a read-only root
# filesystem). See docs/operations.md.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/skillsync ./cmd/skillsync

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/skillsync /usr/local/bin/skillsync
# 65532 is distroless "nonroot"; run with the workspace owner's uid where it differs.
USER 65532:65532
WORKDIR /workspace
EXPOSE 8081
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s CMD ["skillsync", "probe", "http://127.0.0.1:8081/healthz"]
# Defaults through the environment, so `docker run IMAGE --poll 2s` keeps them.
ENV SKILLSYNC_WORKSPACE=/workspace SKILLSYNC_HEALTH_ADDR=:8081 SKILLSYNC_LOG_FORMAT=json
ENTRYPOINT ["skillsync", "reconcile"]
