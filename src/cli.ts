#!/usr/bin/env bun
import { loadConfig } from './config'
import { createLogger } from './log'
import { startHerald } from './server'

const config = loadConfig()
const log = createLogger(config.LOG_LEVEL)
const herald = await startHerald(config, log)
for (const sig of ['SIGTERM', 'SIGINT'] as const) process.on(sig, () => herald.stop().then(() => process.exit(0)))
