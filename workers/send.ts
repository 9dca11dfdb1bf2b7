// Piscina task: the deliveries of a batch of events (src/delivery/send_task.ts).
// One task per batch rather than per delivery: a hop between threads costs
// about as much as a webhook to a fast receiver, so the main thread sends a
// batch of events with the routers and devices they may go to, and this
// thread matches the patterns (compiled once per thread), renders, sends
// everything concurrently and returns one outcome per delivery. The job and
// the result are plain data; an expected failure is a result, never a throw.
export { default, deliveryId, plan } from '../src/delivery/send_task'
