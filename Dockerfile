# Images of the Redis Stream Coordinator, built from the repository root:
#
#   docker build -t rsc-coordinator:dev --build-arg VERSION=$(git describe --tags --always) .
#   docker build -t rsc-member-example:dev --target member .
#
# The default (last) stage is the coordinator image, with streamctl for
# health checks. The "member" stage is the member SDK's example consumer
# (membersdk/example, built in the SDK's own module, as an application
# would build it), used by docs/deploy/docker-compose.demo.yaml.
# The Go build is `make build`: static binaries (CGO_ENABLED=0) with the
# version stamped. Not built by the test suite (no Docker there);
# cmd/coordinator's release test checks that every path named here exists.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
COPY membersdk/go.mod membersdk/go.sum ./membersdk/
RUN go mod download && go -C membersdk mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/coordinator ./cmd/coordinator && \
    CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/streamctl ./cmd/streamctl && \
    CGO_ENABLED=0 go build -C membersdk -trimpath -ldflags "-s -w" -o /out/member-example ./example

FROM gcr.io/distroless/static-debian12:nonroot AS member
COPY --from=build /out/member-example /usr/local/bin/
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/member-example"]

FROM gcr.io/distroless/static-debian12:nonroot AS coordinator
COPY --from=build /out/coordinator /out/streamctl /usr/local/bin/
# Numeric, so that Kubernetes can verify runAsNonRoot.
USER 65532:65532
# 8080 HTTP API, 9100 metrics.addr (unauthenticated /metrics), 7000/7001 cluster.
EXPOSE 8080 9100 7000 7001
ENTRYPOINT ["/usr/local/bin/coordinator"]
