# The fairtable relay and web app in a container (docs/hosting.md).
#   docker build -t fairtable .
#   docker run -p 8080:8080 -v fairtable-data:/data fairtable
# The relay's database and its signing key live in /data: keep that volume, or every game's
# receipts name a key the relay no longer has.

FROM node:20-bookworm-slim AS build
# better-sqlite3 compiles from source where no prebuilt binary fits.
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY . .
# npm ci builds every package and the web app (the root package's prepare script); then the
# build tools go.
RUN npm ci --no-audit --no-fund && npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
WORKDIR /app
COPY --from=build /app /app
RUN mkdir -p /data && chown node:node /data
USER node
ENV NODE_ENV=production PORT=8080 DATA_DIR=/data
VOLUME /data
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+process.env.PORT+'/relay').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "packages/cli/dist/main.js", "relay"]
