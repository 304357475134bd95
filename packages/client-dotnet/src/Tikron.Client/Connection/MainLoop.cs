using System;
using System.Collections.Concurrent;
using System.Threading;

namespace Tikron.Client
{
    /// <summary>
    /// A main thread for programs that have none of their own (console tools, bots, tests): a
    /// <see cref="SynchronizationContext"/> whose posted work runs one item at a time on a dedicated
    /// thread. Give it as <see cref="ConnectOptions.SynchronizationContext"/> and every callback of the
    /// connections runs there. Engines have their own main thread and do not need it.
    /// </summary>
    public sealed class MainLoop : SynchronizationContext, IDisposable
    {
        readonly BlockingCollection<(SendOrPostCallback Fn, object? State)> _work = new BlockingCollection<(SendOrPostCallback, object?)>();
        readonly Thread _thread;

        /// <summary>Starts the loop's thread.</summary>
        public MainLoop(string name = "tikron-main")
        {
            _thread = new Thread(Run) { IsBackground = true, Name = name };
            _thread.Start();
        }

        /// <summary>True when called on the loop's thread.</summary>
        public bool OnLoop => Thread.CurrentThread == _thread;

        void Run()
        {
            SetSynchronizationContext(this);
            foreach (var (fn, state) in _work.GetConsumingEnumerable())
            {
                try
                {
                    fn(state);
                }
                catch (Exception e)
                {
                    Console.Error.WriteLine("[tikron main loop] " + e);
                }
            }
        }

        /// <inheritdoc/>
        public override void Post(SendOrPostCallback d, object? state)
        {
            if (!_work.IsAddingCompleted) _work.Add((d, state));
        }

        /// <inheritdoc/>
        public override void Send(SendOrPostCallback d, object? state)
        {
            if (OnLoop)
            {
                d(state);
                return;
            }
            using var done = new ManualResetEventSlim();
            Exception? error = null;
            Post(_ =>
            {
                try
                {
                    d(state);
                }
                catch (Exception e)
                {
                    error = e;
                }
                done.Set();
            }, null);
            done.Wait();
            if (error != null) throw error;
        }

        /// <summary>Runs <paramref name="fn"/> on the loop and waits for it.</summary>
        public T Invoke<T>(Func<T> fn)
        {
            T result = default!;
            Send(_ => result = fn(), null);
            return result;
        }

        /// <summary>Stops the loop after the work already posted.</summary>
        public void Dispose() => _work.CompleteAdding();
    }
}
