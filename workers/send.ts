// Piscina's entry point for the send pool: the task itself, and why it takes
// a batch, is src/delivery/send_task.ts.
export { default, deliveryId, plan } from '../src/delivery/send_task'
