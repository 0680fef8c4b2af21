// SPDX-License-Identifier: LGPL-2.1-or-later
// Mono workload: the runtime attaches the main thread and its own threads
// (each asks for its stack bounds); work on a second thread and the main.
using System;
using System.Threading;

class Hello {
	static int Fib(int n) { return n < 2 ? n : Fib(n - 1) + Fib(n - 2); }

	static void Main() {
		int other = 0;
		var t = new Thread(() => { other = Fib(20); });
		t.Start();
		t.Join();
		Console.WriteLine("thread: fib 20 = " + other);
		Console.WriteLine("main: fib 22 = " + Fib(22));
		var sb = new System.Text.StringBuilder();
		for (int i = 0; i < 10; i++) sb.Append(i * i).Append(' ');
		Console.WriteLine(sb.ToString().Trim());
	}
}
