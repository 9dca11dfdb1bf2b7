// A real SMTP receiver on loopback (the smtp-server package) that keeps every
// message it accepts, decoded, and refuses or defers recipients the way real
// servers do: gone@… is 550, later@… is 451.
import type { AddressInfo } from 'node:net'
import { SMTPServer } from 'smtp-server'

export interface Mail {
  from: string
  to: string[]
  headers: Record<string, string>
  body: string
}

/** Headers (unfolded, lower-case names) and body of a message, quoted-printable decoded. */
export function parseMail(raw: string): { headers: Record<string, string>; body: string } {
  const split = raw.indexOf('\r\n\r\n')
  const headers: Record<string, string> = {}
  for (const line of raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':')
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim()
  }
  let body = raw.slice(split + 4)
  if (headers['content-transfer-encoding'] === 'quoted-printable') {
    const bytes = body.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)))
    body = Buffer.from(bytes, 'latin1').toString('utf8')
  }
  return { headers, body: body.replace(/\r\n/g, '\n').replace(/\n$/, '') }
}

/** Starts the receiver; what it accepts goes to `mails` (a new array unless given). */
export async function startSmtp(mails: Mail[] = []) {
  const smtp = new SMTPServer({
    authOptional: true,
    // Any credentials are accepted, so that a sender configured with a password still delivers here.
    onAuth(auth, _session, callback) {
      callback(null, { user: auth.username })
    },
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (address.address.startsWith('gone@')) return callback(Object.assign(new Error('5.1.1 No such user'), { responseCode: 550 }))
      if (address.address.startsWith('later@')) return callback(Object.assign(new Error('4.3.0 Try again later'), { responseCode: 451 }))
      callback()
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (c: Buffer) => chunks.push(c))
      stream.on('end', () => {
        mails.push({ from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((r) => r.address), ...parseMail(Buffer.concat(chunks).toString('utf8')) })
        callback()
      })
    },
  })
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve))
  return {
    port: (smtp.server.address() as AddressInfo).port,
    mails,
    close: () => new Promise<void>((resolve) => smtp.close(() => resolve())),
  }
}
