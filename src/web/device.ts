// This device: the service worker, installing the app, and push
// notifications to it (the browser's PushSubscription, registered with
// Herald as a webpush device). Every failure is an Error whose message says
// what happened in words a person can act on.
import { api, ApiError } from './api'
import { clearSavedData } from './offline'
import { VAPID_KEY_PATH, deviceBody, keyBytes } from './push'

export type PushState = 'insecure' | 'ios-install' | 'unsupported' | 'denied' | 'off' | 'on'

/** The id of this browser's device in Herald, for turning it off. */
const DEVICE_KEY = 'herald.pushDevice'

// iPadOS says it is a Mac; a Mac has no touch screen.
export const isIOS = () => /iPad|iPhone|iPod/.test(navigator.userAgent) || (navigator.platform === 'MacIntel' && navigator.maxTouchPoints > 1)
/** Opened as the installed app (from the home screen or the dock), not in a browser tab. */
export const isInstalled = () => matchMedia('(display-mode: standalone)').matches || (navigator as { standalone?: boolean }).standalone === true

export function registerWorker() {
  if (!('serviceWorker' in navigator)) return
  // A failure here only costs offline use; the notifications page registers again and says why it fails.
  navigator.serviceWorker.register('/sw.js', { scope: '/' }).catch((err) => console.warn('The service worker did not register:', err))
}

/** The worker, once active (a subscription needs an active one). Throws in words when it cannot register. */
async function activeWorker(): Promise<ServiceWorkerRegistration> {
  try {
    await navigator.serviceWorker.register('/sw.js', { scope: '/' })
  } catch (err) {
    throw new Error(`The browser refused Herald's service worker, which notifications need: ${reason(err)}`)
  }
  return navigator.serviceWorker.ready
}

const reason = (err: unknown) => (err instanceof ApiError ? err.detail : err instanceof Error ? err.message : String(err))

async function subscription(): Promise<PushSubscription | null> {
  const registration = await navigator.serviceWorker?.getRegistration('/')
  return (await registration?.pushManager.getSubscription()) ?? null
}

export async function pushState(): Promise<PushState> {
  if (!window.isSecureContext) return 'insecure'
  // Safari on iOS offers push only to the app added to the Home Screen (iOS 16.4 and later).
  if (isIOS() && !isInstalled()) return 'ios-install'
  if (!('serviceWorker' in navigator) || !('PushManager' in window) || !('Notification' in window)) return 'unsupported'
  if (Notification.permission === 'denied') return 'denied'
  if (Notification.permission !== 'granted') return 'off'
  return (await subscription()) ? 'on' : 'off'
}

const sameKey = (a: ArrayBuffer | null, b: Uint8Array) => a !== null && a.byteLength === b.length && new Uint8Array(a).every((x, i) => x === b[i])

/** Asks for permission, subscribes with Herald's key and registers the subscription as a device. */
export async function turnOn(): Promise<void> {
  const permission = await Notification.requestPermission()
  if (permission === 'denied') throw new Error('Blocked by the browser: allow notifications for this site in its settings, then try again.')
  if (permission !== 'granted') throw new Error('Notifications were not allowed: choose Allow when the browser asks.')
  const key = keyBytes((await api.get(VAPID_KEY_PATH)).publicKey)
  const registration = await activeWorker()
  // A subscription made with another key (Herald's key changed) cannot be reused.
  const old = await registration.pushManager.getSubscription()
  if (old && !sameKey(old.options.applicationServerKey, key)) await old.unsubscribe()
  let sub: PushSubscription
  try {
    sub = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key })
  } catch (err) {
    throw new Error(`The browser could not subscribe to push messages: ${reason(err)}`)
  }
  try {
    const { id } = await api.post('/v1/devices', { body: deviceBody(sub) })
    localStorage.setItem(DEVICE_KEY, id)
  } catch (err) {
    // Not left half on: a subscription Herald does not know would never be used.
    await sub.unsubscribe().catch(() => false)
    throw err
  }
}

/** The id of the device with this endpoint, from GET /v1/devices (for a subscription renewed by the worker). */
async function deviceWith(endpoint: string): Promise<string | null> {
  const devices = await api.get('/v1/devices')
  return devices.find((d) => d.provider === 'webpush' && d.endpoint === endpoint)?.id ?? null
}

/** Removes this device from Herald, then ends the subscription. */
export async function turnOff(): Promise<void> {
  const sub = await subscription()
  const id = localStorage.getItem(DEVICE_KEY) ?? (sub ? await deviceWith(sub.endpoint) : null)
  if (id) {
    try {
      await api.delete('/v1/devices/{id}', { path: { id } })
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 404)) throw err // 404: removed already
    }
  }
  localStorage.removeItem(DEVICE_KEY)
  await sub?.unsubscribe()
}

/**
 * At sign-out, while the session still works: Herald stops pushing this
 * person's events to this browser. Best effort: the subscription ends in
 * `forgetDevice` anyway, and Herald drops a device whose push service
 * answers that it is gone.
 */
export async function unregisterDevice(): Promise<void> {
  const id = localStorage.getItem(DEVICE_KEY)
  localStorage.removeItem(DEVICE_KEY)
  if (id) await api.delete('/v1/devices/{id}', { path: { id } }).catch(() => undefined)
}

/**
 * After sign-out: this browser ends its subscription and keeps none of the
 * person's events, so the next person on a shared device sees nothing of theirs.
 */
export async function forgetDevice(): Promise<void> {
  await Promise.allSettled([subscription().then((s) => s?.unsubscribe()), clearSavedData()])
}

// --- installing the app --------------------------------------------------------

interface InstallPrompt extends Event {
  prompt(): Promise<void>
  userChoice: Promise<{ outcome: 'accepted' | 'dismissed' }>
}

let offer: InstallPrompt | null = null
const installListeners = new Set<() => void>()
const installChanged = () => installListeners.forEach((f) => f())

/**
 * Keeps the browser's install offer for the "Install Herald" button. It is
 * not cancelled, so the browser's own offer (an infobar, an icon in the
 * address bar) stays as it was: the button is a second way in.
 */
export function watchInstall() {
  window.addEventListener('beforeinstallprompt', (e) => {
    offer = e as InstallPrompt
    installChanged()
  })
  window.addEventListener('appinstalled', () => {
    offer = null
    installChanged()
  })
}

export const canPromptInstall = () => offer !== null

/** Calls `f` when the install offer comes or goes, until `signal` aborts. */
export function onInstallChange(signal: AbortSignal, f: () => void) {
  installListeners.add(f)
  signal.addEventListener('abort', () => installListeners.delete(f))
}

/** Shows the browser's install dialog; resolves to what the person chose. */
export async function promptInstall(): Promise<'accepted' | 'dismissed'> {
  const e = offer
  if (!e) throw new Error('The browser no longer offers to install Herald: use its menu (Install app, or Add to Home screen).')
  offer = null // an offer is good for one prompt
  await e.prompt()
  const { outcome } = await e.userChoice
  installChanged()
  return outcome
}
