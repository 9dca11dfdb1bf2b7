# One image for every Herald role: `serve` (API), `worker` (delivery),
# `migrate`, and `start` (all-in-one on the embedded database). Built on the
# official Bun image.
ARG BUN_VERSION=1.4.5

FROM oven/bun:${BUN_VERSION}-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# Production dependencies only; the versions are pinned exactly in package.json.
# The image runs on its own Bun: the \`bun\` package, which gives an
# npm-installed herald its Bun (src/cli/herald.mjs), is not needed here.
RUN bun install --production --ignore-scripts && rm -rf node_modules/bun node_modules/@oven

FROM oven/bun:${BUN_VERSION}-slim
WORKDIR /app
ENV NODE_ENV=production \
    HERALD_DATA_DIR=/data \
    PORT=8080
COPY --from=deps /app/node_modules ./node_modules
COPY package.json tsconfig.json ./
COPY sql ./sql
COPY src ./src
COPY workers ./workers
# `herald send` runs on the TypeScript client's source.
COPY clients/typescript/src ./clients/typescript/src
RUN mkdir -p /data && chown bun:bun /data
USER bun
VOLUME /data
EXPOSE 8080 9464
# /healthz on PORT (start, serve), or on METRICS_PORT for a worker, which
# listens on no PORT (src/cli/healthcheck.ts).
HEALTHCHECK --interval=10s --timeout=6s CMD ["bun", "src/cli/healthcheck.ts"]
ENTRYPOINT ["bun", "src/cli/main.ts"]
CMD ["start"]
